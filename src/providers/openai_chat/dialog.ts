/**
 * The dialog model over OpenAI-compatible Chat Completions (OpenAI, vLLM, llama.cpp's server, Ollama). A turn
 * streams the model's text as it comes (held to sentence boundaries, see sentence_gate.ts), assembles the tool
 * calls split across chunks, runs them (opts.runTool: the call records the action) and sends their results back in
 * a follow-up request of the same turn, a bounded number of times. Built-in tools record the extracted fields
 * (entity events), hand off to a human (escalate) and end the call (end_call).
 *
 * An empty text event is yielded just before and after an integration runs: it says nothing to the caller, but it
 * tells the deadline wrapper the turn is alive and tells the fallback the turn has had a side effect, so a failure
 * after it is apologised for rather than replayed by the scripted engine (which would book the slot again).
 */
import {
  AdapterError, type AdapterCallOptions, type DialogAdapter, type DialogEvent, type DialogSummaryRequest, type DialogTurnOptions, type DialogTurnRequest,
  type ToolOutcome,
} from '../../adapters/types.js';
import { qualificationScore } from '../../dialog/extract.js';
import type { ProviderContext } from '../context.js';
import { ChatCompletionsClient, type ChatClientOptions, type ChatMessage, type ChatTool } from './client.js';
import { buildMessages, timeZoneOf } from './prompt.js';
import { SentenceGate } from './sentence_gate.js';
import { summaryMessages, tidySummary } from './summary_prompt.js';
import { parseArguments, toWire, ToolCallAssembler, type AssembledCall } from './tool_calls.js';
import {
  BUILTIN, endReason, escalationReason, integrationArgs, isIntegration, ISO_WITH_OFFSET, recordFields, toolDefinitions,
} from './tools.js';

export interface OpenAiChatDialogOptions extends ChatClientOptions {
  /** clock for a turn that carries no `now` */
  clock?: () => Date;
  /** requests per turn at most: the first and the follow-ups carrying tool results (default 4) */
  maxRequests?: number;
}

const progress = (): DialogEvent => ({ type: 'text', text: '' });

/** What one turn has done so far. */
interface TurnState {
  extracted: Record<string, string | number>;
  ranIntegrations: Set<string>;
  ending?: Extract<DialogEvent, { type: 'escalate' | 'end_call' }>;
  /** keys were pressed for a phone menu: the turn may end silent (the menu speaks next) */
  pressedKeys?: boolean;
}

export class OpenAiChatDialog implements DialogAdapter {
  readonly #client: ChatCompletionsClient;
  constructor(private readonly o: OpenAiChatDialogOptions) {
    this.#client = new ChatCompletionsClient(o);
  }

  async *turn(req: DialogTurnRequest, opts: DialogTurnOptions = {}): AsyncGenerator<DialogEvent> {
    const now = req.now ? new Date(req.now) : (this.o.clock?.() ?? new Date());
    if (Number.isNaN(now.getTime())) throw new AdapterError('dialog', 'invalid', `now is not an ISO 8601 instant: ${req.now}`);
    const tz = timeZoneOf(req);
    const messages: ChatMessage[] = buildMessages(req, now);
    const tools = toolDefinitions(req, tz);
    const state: TurnState = { extracted: { ...req.extracted }, ranIntegrations: new Set() };
    const maxRequests = Math.max(1, this.o.maxRequests ?? 4);
    let said = false;
    for (let round = 0; round < maxRequests; round++) {
      const { text, calls } = yield* this.#request(messages, tools, opts.signal);
      said ||= text.trim() !== '';
      if (!calls.length) break;
      messages.push({ role: 'assistant', content: text || null, tool_calls: calls.map(toWire) });
      let followUp = !said;
      for (const call of calls) {
        const { result, needsAnswer } = yield* this.#runCall(call, req, state, tz, opts);
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
        followUp ||= needsAnswer;
      }
      if (!followUp || (state.pressedKeys && !said)) break;
    }
    // silence is never an answer (the fallback speaks instead), except keys pressed for a phone menu
    if (!said && !state.pressedKeys) throw new AdapterError('dialog', 'failed', 'the dialog model gave no text for the turn');
    if (state.ending) yield* this.#wrapUp(req, state, tz, opts);
  }

  /** The post-call summary: one request without tools, its whole text (summary_prompt.ts). */
  async summarize(req: DialogSummaryRequest, opts: AdapterCallOptions = {}): Promise<string> {
    let text = '';
    for await (const chunk of this.#client.stream({ messages: summaryMessages(req) }, opts.signal)) {
      for (const choice of chunk.choices ?? []) if ((choice.index ?? 0) === 0 && choice.delta?.content) text += choice.delta.content;
    }
    const summary = tidySummary(text);
    if (!summary) throw new AdapterError('dialog', 'failed', 'the dialog model wrote an empty summary');
    return summary;
  }

  /** One streamed request: its text goes out sentence by sentence; returns the text and the tool calls made. */
  async *#request(messages: ChatMessage[], tools: ChatTool[], signal?: AbortSignal):
    AsyncGenerator<DialogEvent, { text: string; calls: AssembledCall[] }> {
    const gate = new SentenceGate();
    const assembler = new ToolCallAssembler();
    let text = '';
    for await (const chunk of this.#client.stream({ messages, tools }, signal)) {
      for (const choice of chunk.choices ?? []) {
        if ((choice.index ?? 0) !== 0) continue;
        if (choice.delta?.tool_calls?.length) assembler.push(choice.delta.tool_calls);
        const content = choice.delta?.content;
        if (!content) continue;
        text += content;
        const ready = gate.push(content);
        if (ready.trim()) yield { type: 'text', text: ready };
      }
    }
    const rest = gate.flush();
    if (rest.trim()) yield { type: 'text', text: rest };
    return { text, calls: assembler.calls() };
  }

  /** Runs one call: yields its events, returns what goes back to the model and whether it must be answered. */
  async *#runCall(call: AssembledCall, req: DialogTurnRequest, state: TurnState, tz: string, opts: DialogTurnOptions):
    AsyncGenerator<DialogEvent, { result: Record<string, unknown>; needsAnswer: boolean }> {
    const args = parseArguments(call.rawArguments);
    if (!args) return { result: { error: 'the arguments are not a JSON object' }, needsAnswer: true };
    if (call.name === BUILTIN.record) {
      const { events, result } = recordFields(args, req);
      for (const e of events) if (e.type === 'entity') state.extracted[e.key] = e.value;
      yield* events;
      return { result, needsAnswer: 'refused' in result };
    }
    if (call.name === BUILTIN.keys) {
      const digits = typeof args.digits === 'string' ? args.digits : '';
      if (!/^[0-9*#]{1,32}$/.test(digits)) return { result: { error: 'digits must be 1-32 of 0-9, * and #' }, needsAnswer: true };
      state.pressedKeys = true;
      yield { type: 'keys', digits };
      return { result: { ok: true, pressed: digits }, needsAnswer: false };
    }
    if (call.name === BUILTIN.human || call.name === BUILTIN.end) {
      state.ending ??= call.name === BUILTIN.human
        ? { type: 'escalate', reason: escalationReason(args) } : { type: 'end_call', reason: endReason(args) };
      return { result: { ok: true }, needsAnswer: false };
    }
    if (!isIntegration(call.name, req)) return { result: { error: `no tool named ${call.name} on this call` }, needsAnswer: true };
    const result = yield* this.#integration(call.name, integrationArgs(call.name, args, req, state.extracted, tz), state, opts);
    return { result, needsAnswer: true };
  }

  /** Runs an enabled integration through the call (or announces it when the caller runs tools itself). */
  async *#integration(tool: string, args: Record<string, string>, state: TurnState, opts: DialogTurnOptions):
    AsyncGenerator<DialogEvent, Record<string, unknown>> {
    state.ranIntegrations.add(tool);
    if (!opts.runTool) {
      yield { type: 'tool_call', tool, arguments: args };
      return { status: 'queued' };
    }
    yield progress();
    let result: Record<string, unknown>;
    try {
      const outcome = await withinDeadline(opts.runTool(tool, args), opts.timeoutMs);
      result = outcome
        ? { status: outcome.status, ...(outcome.result ? { result: outcome.result } : {}) }
        : { status: 'pending', note: 'the provider has not answered yet; the call records it when it does' };
      // a booked slot is the scheduled slot, as the scripted engine records it
      if (tool === 'calendar_booking' && outcome && /^2\d\d_/.test(outcome.status) && ISO_WITH_OFFSET.test(args.start ?? '')
        && state.extracted.scheduled_slot === undefined) {
        state.extracted.scheduled_slot = args.start;
        yield { type: 'entity', key: 'scheduled_slot', value: args.start };
      }
    } catch (err) {
      if (opts.signal?.aborted) throw new AdapterError('dialog', 'canceled', 'dialog call canceled');
      result = { status: 'failed', error: (err as Error).message };
    }
    yield progress();
    return result;
  }

  /** The call is ending: the score and the CRM update the scripted engine also makes, then the ending itself. */
  async *#wrapUp(req: DialogTurnRequest, state: TurnState, tz: string, opts: DialogTurnOptions): AsyncGenerator<DialogEvent> {
    const fields = req.agent.qualify_script.map((s) => s.field);
    if (state.extracted.qualification_score === undefined && fields.length) {
      const score = qualificationScore(fields, state.extracted);
      state.extracted.qualification_score = score;
      yield { type: 'entity', key: 'qualification_score', value: score };
    }
    const ending = state.ending!;
    if (req.tools.includes('crm_sync') && !state.ranIntegrations.has('crm_sync')) {
      const outcome = ending.type === 'escalate' ? 'escalated' : ending.reason === 'completed' ? 'completed' : 'declined';
      yield* this.#integration('crm_sync', integrationArgs('crm_sync', { outcome }, req, state.extracted, tz), state, opts);
    }
    yield ending;
  }
}

/**
 * The tool's outcome, or undefined when it takes most of the turn's per-item deadline: the model is told it is
 * pending and speaks on (the call still records the outcome when it comes), rather than the deadline ending the
 * turn in an apology because a provider is slow.
 */
async function withinDeadline(run: Promise<ToolOutcome>, timeoutMs: number | undefined): Promise<ToolOutcome | undefined> {
  if (!timeoutMs || timeoutMs <= 0) return run;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => { timer = setTimeout(resolve, timeoutMs * 0.8, undefined); });
  run.catch(() => {}); // still awaited by the race; a rejection after the race is lost on purpose
  try {
    return await Promise.race([run, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The provider factory of DIALOG_PROVIDER=openai. */
export function createOpenAiChatDialog(ctx: ProviderContext): OpenAiChatDialog {
  const { config, log } = ctx;
  return new OpenAiChatDialog({
    baseUrl: config.OPENAI_BASE_URL, apiKey: config.OPENAI_API_KEY, model: config.OPENAI_MODEL, warn: (msg) => log.warn(msg),
  });
}
