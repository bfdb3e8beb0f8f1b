/** Plays a scripted caller against the scripted engine, turn by turn, as the demo loop and a call do. */
import { planTurn, type ToolResults } from '../../../src/dialog/index.js';
import type { DialogEvent, DialogMessage, DialogTurnRequest } from '../../../src/adapters/types.js';
import { DEFAULT_AGENT } from '../../../src/repos/agents.js';

export const NOW = new Date('2026-11-22T18:00:00Z');
export const ALL_TOOLS = ['calendar_booking', 'crm_sync', 'messaging_brochure'];

export const textOf = (events: DialogEvent[]) => events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text).join(' ');

/**
 * `results`: how the tools the engine fires turn out (as ScriptedDialog learns from runTool); absent: announced only.
 * A null line is a turn spoken and not understood (the speech-to-text's `unheard`).
 */
export function converse(callerLines: Array<string | null>, over: Partial<DialogTurnRequest> = {}, opts: { callerFirst?: boolean; results?: ToolResults } = {}) {
  const history: DialogMessage[] = [];
  const extracted: Record<string, string | number> = {};
  const turns: DialogEvent[][] = [];
  for (const line of opts.callerFirst ? callerLines : ['', ...callerLines]) {
    const callerText = line ?? '';
    const events = planTurn({
      callId: 'call_t', agent: DEFAULT_AGENT, context: {}, tools: ALL_TOOLS, history: [...history], callerText,
      extracted: { ...extracted }, timeZone: 'Asia/Kolkata', ...(line === null ? { unheard: true } : {}), ...over,
    }, NOW, opts.results);
    turns.push(events);
    if (callerText) history.push({ role: 'caller', text: callerText });
    history.push({ role: 'agent', text: textOf(events) });
    for (const e of events) if (e.type === 'entity') extracted[e.key] = e.value;
    if (events.some((e) => e.type === 'end_call' || e.type === 'escalate')) break;
  }
  return { turns, extracted, last: turns.at(-1)! };
}
