/** Dialog model over gRPC: Turn in, DialogEvent stream out. */
import * as grpc from '@grpc/grpc-js';
import type { AdapterCallOptions, DialogAdapter, DialogEvent, DialogMessage, DialogTurnRequest, ListenHint } from '../types.js';
import { AdapterError } from '../types.js';
import { callServerStream, serverStreamHandler, GrpcClient } from './calls.js';
import { streamWithDeadline } from '../deadline.js';

type ValueMsg = { kind?: 'string_value' | 'number_value'; string_value?: string; number_value?: number };
interface TurnMsg {
  call_id: string;
  agent: { role: string; language: string; disclosure_script: string; qualify_script: { field: string; question: string }[]; knowledge?: { question: string; answer: string }[] };
  context: Record<string, string>;
  tools: string[];
  history: { role: string; text: string }[];
  caller_text: string;
  extracted: Record<string, ValueMsg>;
  now: string;
  time_zone: string;
  unheard?: boolean;
}
type EventMsg =
  | { event: 'text'; text: { text: string } }
  | { event: 'entity'; entity: { key: string; value: ValueMsg } }
  | { event: 'tool_call'; tool_call: { tool: string; arguments: Record<string, string> } }
  | { event: 'escalate'; escalate: { reason: string } }
  | { event: 'end_call'; end_call: { reason: string } }
  | { event: 'listen'; listen: { hint: HintMsg } }
  | { event: 'keys'; keys: { digits: string } };
export interface HintMsg { asking: string; yes_no: boolean; open: string[]; names: string[] }

export const toHintMsg = (h: ListenHint): HintMsg => ({ asking: h.asking ?? '', yes_no: h.yesNo ?? false, open: h.open, names: h.names ?? [] });
export function fromHintMsg(m: Partial<HintMsg> | undefined): ListenHint {
  return { ...(m?.asking ? { asking: m.asking } : {}), ...(m?.yes_no ? { yesNo: true } : {}), open: m?.open ?? [], ...(m?.names?.length ? { names: m.names } : {}) };
}

const toValue = (v: string | number): ValueMsg => (typeof v === 'number' ? { number_value: v } : { string_value: v });
const fromValue = (v: ValueMsg | undefined): string | number => (v?.kind === 'number_value' ? Number(v.number_value) : String(v?.string_value ?? ''));

function toTurnMsg(r: DialogTurnRequest): TurnMsg {
  return {
    call_id: r.callId,
    agent: { role: r.agent.role, language: r.agent.language, disclosure_script: r.agent.disclosure_script, qualify_script: r.agent.qualify_script,
      knowledge: (r.agent.knowledge ?? []).map((k) => ({ question: k.question ?? '', answer: k.answer })) },
    context: r.context, tools: r.tools, history: r.history, caller_text: r.callerText,
    extracted: Object.fromEntries(Object.entries(r.extracted).map(([k, v]) => [k, toValue(v)])),
    now: r.now ?? '', time_zone: r.timeZone ?? '', unheard: r.unheard ?? false,
  };
}

function fromTurnMsg(m: TurnMsg): DialogTurnRequest {
  return {
    callId: m.call_id,
    agent: { role: m.agent?.role ?? '', language: m.agent?.language ?? '', disclosure_script: m.agent?.disclosure_script ?? '', qualify_script: m.agent?.qualify_script ?? [],
      ...(m.agent?.knowledge?.length ? { knowledge: m.agent.knowledge.map((k) => ({ ...(k.question ? { question: k.question } : {}), answer: k.answer })) } : {}) },
    context: m.context ?? {}, tools: m.tools ?? [],
    history: (m.history ?? []).map((h) => ({ role: h.role as DialogMessage['role'], text: h.text })),
    callerText: m.caller_text,
    extracted: Object.fromEntries(Object.entries(m.extracted ?? {}).map(([k, v]) => [k, fromValue(v)])),
    ...(m.now ? { now: m.now } : {}), ...(m.time_zone ? { timeZone: m.time_zone } : {}), ...(m.unheard ? { unheard: true } : {}),
  };
}

function toEventMsg(e: DialogEvent): EventMsg {
  switch (e.type) {
    case 'text': return { event: 'text', text: { text: e.text } };
    case 'entity': return { event: 'entity', entity: { key: e.key, value: toValue(e.value) } };
    case 'tool_call': return { event: 'tool_call', tool_call: { tool: e.tool, arguments: e.arguments } };
    case 'escalate': return { event: 'escalate', escalate: { reason: e.reason } };
    case 'end_call': return { event: 'end_call', end_call: { reason: e.reason } };
    case 'listen': return { event: 'listen', listen: { hint: toHintMsg(e.hint) } };
    case 'keys': return { event: 'keys', keys: { digits: e.digits } };
  }
}

function fromEventMsg(m: EventMsg): DialogEvent {
  switch (m.event) {
    case 'text': return { type: 'text', text: m.text.text };
    case 'entity': return { type: 'entity', key: m.entity.key, value: fromValue(m.entity.value) };
    case 'tool_call': return { type: 'tool_call', tool: m.tool_call.tool, arguments: m.tool_call.arguments ?? {} };
    case 'escalate': return { type: 'escalate', reason: m.escalate.reason };
    case 'end_call': return { type: 'end_call', reason: m.end_call.reason };
    case 'listen': return { type: 'listen', hint: fromHintMsg(m.listen.hint) };
    case 'keys': return { type: 'keys', digits: m.keys.digits };
    default: throw new AdapterError('dialog', 'failed', 'dialog server sent an event of unknown type');
  }
}

export function dialogHandlers(impl: DialogAdapter): grpc.UntypedServiceImplementation {
  return {
    Turn: serverStreamHandler<TurnMsg, EventMsg>(async function* (m, opts) {
      for await (const e of impl.turn(fromTurnMsg(m), opts)) yield toEventMsg(e);
    }),
  };
}

export class GrpcDialog implements DialogAdapter {
  readonly #rpc: GrpcClient;
  constructor(address: string, defaultTimeoutMs: number) {
    this.#rpc = new GrpcClient('dialog', 'dialog', address, defaultTimeoutMs);
  }

  turn(req: DialogTurnRequest, opts?: AdapterCallOptions): AsyncIterable<DialogEvent> {
    const method = this.#rpc.method('Turn');
    const ctx = this.#rpc.ctx;
    const timed = { ...opts, timeoutMs: opts?.timeoutMs ?? ctx.defaultTimeoutMs };
    return streamWithDeadline('dialog', timed, async function* (signal) {
      for await (const m of callServerStream<EventMsg>(ctx, method, toTurnMsg(req), { signal })) yield fromEventMsg(m);
    });
  }

  close(): void { this.#rpc.close(); }
}
