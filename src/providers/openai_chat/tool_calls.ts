/**
 * Assembles streamed tool calls: the first fragment of a call brings its index, id and name, later ones only
 * pieces of the arguments JSON, to be concatenated and parsed once the stream finished. Calls are keyed by index
 * and id together, because some servers (Ollama) send parallel calls all at index 0, told apart only by id.
 */
import type { ToolCallDelta, WireToolCall } from './client.js';

export interface AssembledCall { id: string; name: string; rawArguments: string }

export class ToolCallAssembler {
  readonly #calls: AssembledCall[] = [];
  /** the call each index is currently filling */
  readonly #byIndex = new Map<number, AssembledCall>();

  push(deltas: ToolCallDelta[]): void {
    for (const d of deltas) {
      const index = typeof d.index === 'number' ? d.index : 0;
      let call = this.#byIndex.get(index);
      if (!call || (d.id && call.id && d.id !== call.id)) {
        call = { id: d.id ?? '', name: '', rawArguments: '' };
        this.#calls.push(call);
        this.#byIndex.set(index, call);
      }
      if (d.id && !call.id) call.id = d.id;
      if (d.function?.name && !call.name) call.name = d.function.name; // some servers repeat it on every fragment
      if (typeof d.function?.arguments === 'string') call.rawArguments += d.function.arguments;
    }
  }

  /** The calls in the order they began; a call without an id gets one (the tool message must name it). */
  calls(): AssembledCall[] {
    return this.#calls.filter((c) => c.name).map((c, i) => ({ ...c, id: c.id || `call_${i}` }));
  }
}

/** The arguments as an object: {} for an empty string, undefined when they are not a JSON object. */
export function parseArguments(raw: string): Record<string, unknown> | undefined {
  if (!raw.trim()) return {};
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

export const toWire = (c: AssembledCall): WireToolCall => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.rawArguments || '{}' } });
