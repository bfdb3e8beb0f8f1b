/**
 * deps.calls: dispatch, read, list, hang up and transfer calls of a tenant; tells listeners when a call ends.
 * Dispatch stores the call (status dialing) under the tenant's concurrency limit and hands it to the runner,
 * which drives the carrier, the media session and the end of the call on this instance. A dispatch through the API
 * passes the gates of src/leads/gates.ts first (calling hours here, do-not-disturb and consent inside dispatch_calls);
 * leads and campaigns gate their calls themselves before they dispatch.
 */
import { EventEmitter } from 'node:events';
import { Batcher, maxBatchFor, REQUEST_WRITE_LINGER_MS } from '../db/batcher.js';
import type { Db } from '../db/db.js';
import type { Logger } from '../log.js';
import type { AgentRepo } from '../repos/agents.js';
import { DEFAULT_AGENT } from '../repos/agents.js';
import { ConversationRepo } from '../repos/conversations.js';
import type { CallEventSink } from '../stream/types.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { callingHoursGate } from '../leads/gates.js';
import { calleeTimeZone, zonesFor } from '../leads/phone.js';
import { CallRepo, toRecord, type CallRow } from './repo.js';
import { callerKnown, InboundRouting } from './inbound.js';
import type { CallCommand, CallCommands } from './commands.js';
import type { TransferAsk } from './runner.js';
import type { TransferMode } from '../adapters/types.js';
import { transition } from './lifecycle.js';
import type { AgentSnapshot, CallCompliance, CallRecord, CallStatus, DispatchInput, ListFilters } from './types.js';
import { isTerminal } from './types.js';

export interface CallRunnerPort {
  /** starts driving a stored call (asynchronously); never throws */
  start(row: CallRow): void;
  /** true when the call lives on this instance and was told to hang up */
  hangup(callId: string, reason: string): boolean;
  /** true when the call lives on this instance and the agent was stopped (a number: cold or warm, as asked) */
  transfer(callId: string, target: string, ask?: TransferAsk): Promise<boolean>;
  /** ends a call this instance does not drive in storage (with its webhook); false when it was over or moved */
  endInStorage?(row: CallRow, reason: string): Promise<boolean>;
}

/** How long an owner waits for a call it hangs up to store its end before answering, ms. */
const END_WAIT_MS = 10_000;

/** A call that reached its final status on this instance. */
export interface EndedCall { id: string; tenant_id: string; status: CallStatus; ended_reason: string | null; campaign_id: string | null }

/** The gates of a dispatch that nothing gated before (POST /v1/calls/dispatch): evaluated at `at`, on behalf of `by`. */
export interface DispatchGates {
  at: Date;
  by: { sub: string; kind: 'user' | 'api_key' };
}

/**
 * For a dispatcher that gated the number itself (campaigns and leads reschedule outside calling hours rather than
 * refuse): do-not-disturb is checked again in the statement that stores the call, at `dndAt`, so an entry added
 * after that gate still blocks the call (answered as `dnd_blocked`).
 */
export interface DndRecheck { dndAt: Date }

/** The line (and the caller) of a call from a browser: no phone number is involved. */
export const BROWSER_LINE = 'browser';

/** Gates a transactional mark lifts (where regulation allows: a service call about the callee's own transaction). */
export const TRANSACTIONAL_LIFTS = ['dnd', 'calling_hours'] as const;

export interface CallServiceOptions {
  db: Db; log: Logger; agents: AgentRepo; events: CallEventSink; maxConcurrentPerTenant: number; instanceId: string;
  recordingUrl: (callId: string) => string;
}

export class CallService {
  readonly repo: CallRepo;
  /** where calls to the tenants' numbers go */
  readonly inbound: InboundRouting;
  /** the clock of dispatch gates (tests fix it, like LeadService.clock) */
  clock: () => Date = () => new Date();
  readonly #ended = new EventEmitter();
  #runner?: CallRunnerPort;
  #commands?: CallCommands;
  /** Dispatches arriving while a batch is in flight go together: one statement and one commit (src/db/functions/dispatch_calls.sql). */
  readonly #dispatches: Batcher<DispatchItem, DispatchResult>;
  constructor(private readonly o: CallServiceOptions) {
    this.repo = new CallRepo(o.db);
    this.inbound = new InboundRouting(o.db);
    this.#ended.setMaxListeners(0);
    // One batch in flight: a batch holds its tenants' dispatch lock until commit, so a second one in flight would
    // mostly wait for that lock inside PostgreSQL, holding a connection and splitting the queue into smaller, costlier
    // batches (measured in bench/README.md, "Write batching").
    this.#dispatches = new Batcher((items) => this.#dispatchBatch(items), { maxBatch: maxBatchFor(o.db.kind, 100), maxInFlight: 1, lingerMs: REQUEST_WRITE_LINGER_MS });
  }

  async #dispatchBatch(items: DispatchItem[]): Promise<DispatchResult[]> {
    const r = await this.o.db.query<DispatchResult & { o_i: number }>(DISPATCH_BATCH_SQL, [
      JSON.stringify(items.map((item, i) => ({ ...item, i }))), this.o.instanceId, this.o.maxConcurrentPerTenant,
    ]);
    const out: DispatchResult[] = new Array(items.length);
    for (const row of r.rows) out[row.o_i] = row;
    return out;
  }

  attachRunner(runner: CallRunnerPort): void { this.#runner = runner; }

  /** Campaigns pace on this: every call that reaches a final status on this instance. */
  onCallEnded(listener: (call: EndedCall) => void): void { this.#ended.on('ended', listener); }

  /** Called by the runner once a call is final and its outcome stored (what it just wrote: no re-read). */
  notifyEnded(call: EndedCall): void {
    for (const l of this.#ended.listeners('ended')) {
      try { (l as (c: EndedCall) => void)(call); } catch (err) { this.o.log.warn({ err, call_id: call.id }, 'onCallEnded listener failed'); }
    }
  }

  /**
   * One statement (src/db/functions/dispatch_calls.sql, shared with the dispatches that arrive meanwhile): agent
   * snapshot, the tenant's dispatch lock, the exact active count, the conversation (the lead's, or a new one;
   * linked both ways), the call and its first live items (`queued` seq 1 and, with a runner, `dialing` seq 2: also
   * its first transitions). Its synchronous commit makes the dispatch durable before the caller hears 201; the
   * items are then only announced on the bus.
   */
  async dispatch(tenantId: string, input: DispatchInput, gates?: DispatchGates | DndRecheck): Promise<CallRecord> {
    const call = this.prepareDispatch(tenantId, input, gates);
    return call.start(await this.#dispatches.push(call.item));
  }

  /** The limit dispatch_calls is run with (a statement that dispatches calls of its own passes it on). */
  get maxConcurrentPerTenant(): number { return this.o.maxConcurrentPerTenant; }

  /**
   * A dispatch in two halves, for a statement that stores the call together with rows of its own (create_leads):
   * `item` goes into dispatch_calls there, and `start` takes its answer after that statement
   * committed: refusals become errors; a stored call is announced (its seq 1 and 2 items) and handed to the runner.
   */
  prepareDispatch(tenantId: string, input: DispatchInput, checks?: DispatchGates | DndRecheck): { item: DispatchItem; start(out: DispatchResult): CallRecord } {
    const id = newId('call');
    const gates = checks && 'by' in checks ? checks : undefined;
    const dndAt = checks && 'dndAt' in checks ? checks.dndAt : gates?.at;
    let compliance: CallCompliance | null = null;
    if (gates && input.transactional) {
      compliance = { transactional: true, reason: input.transactional.reason, marked_by: gates.by.sub, marked_by_kind: gates.by.kind,
        marked_at: gates.at.toISOString(), gates_lifted: [...TRANSACTIONAL_LIFTS], audit_id: newId('caud') };
    } else if (gates) {
      const hours = callingHoursGate(input.to, gates.at, { timezone: input.timezone });
      if (!hours.allowed) {
        const zones = zonesFor(input.to, input.timezone);
        throw new ApiError('outside_calling_hours',
          `calling-hours gate: it is outside 09:00-21:00 for the callee (${zones.join(', ')})`
          + (hours.next_window_at ? `; the next window opens at ${hours.next_window_at}` : '; the zones\' windows never overlap'),
          { gate: 'calling_hours', time_zones: zones, next_window_at: hours.next_window_at ?? null });
      }
    }
    const inline: AgentSnapshot | null = input.agent
      ? { ...input.agent, disclosure_script: DEFAULT_AGENT.disclosure_script, qualify_script: DEFAULT_AGENT.qualify_script }
      : null;
    const context = input.context ?? {};
    const tools = input.tools ?? [];
    const item: DispatchItem = {
      id, tenant: tenantId, agent_key: input.agent_id ?? 'default', agent: inline, agent_id: input.agent_id ?? null, to_number: input.to,
      language: input.language ?? null, context, tools, webhook_url: input.webhook_url ?? null,
      conversation_id: input.conversation_id ?? null, new_conversation_id: newId('conv'), lead_id: input.lead_id ?? null,
      lead_job_id: input.lead_job_id ?? null,
      campaign_id: input.campaign_id ?? null, scenario: input.scenario ?? null,
      // The runner dials every call it is handed at once, so the call is stored dialing: no second statement to move it.
      dialing: this.#runner !== undefined,
      // do-not-disturb and consent, in dispatch_calls (dnd_blocks), unless nothing asked for gates or a mark lifts them
      dnd_at: dndAt && !compliance ? dndAt.toISOString() : null, compliance, audit_id: compliance?.audit_id ?? null,
    };
    return { item, start: (out) => this.#started(item, input, out) };
  }

  #started(item: DispatchItem, input: DispatchInput, out: DispatchResult): CallRecord {
    const row = this.#rowOf(item, input, out);
    const at = new Date(out.o_created_at!).toISOString();
    this.o.events.announce({ type: 'status', status: 'queued', ended_reason: null, call_id: row.id, seq: 1, at });
    if (item.dialing) this.o.events.announce({ type: 'status', status: 'dialing', ended_reason: null, call_id: row.id, seq: 2, at });
    this.#runner?.start(row);
    return { ...toRecord({ ...row, context: item.context }, this.o.recordingUrl), compliance: item.compliance };
  }

  /** The stored call as the runner needs it, from the dispatch and dispatch_calls' answer (refusals thrown). */
  #rowOf(item: DispatchItem, input: DispatchInput, out: DispatchResult): CallRow {
    if (out.o_outcome === 'agent_not_found') throw new ApiError('not_found', `agent ${input.agent_id} not found`);
    if (out.o_outcome === 'dnd_blocked') {
      throw new ApiError('dnd_blocked', `do-not-disturb gate: ${input.to} is on the tenant's do-not-disturb list and no consent is `
        + 'recorded for it; an admin may mark a call transactional ({"transactional": {"reason": …}}) where regulation allows',
      { gate: 'dnd' });
    }
    if (out.o_outcome === 'concurrency_limited') {
      throw new ApiError('concurrency_limited', `the tenant already has ${Number(out.o_active)} active calls (limit ${this.o.maxConcurrentPerTenant})`,
        { retryable: true, retryAfterSeconds: 5, limit: this.o.maxConcurrentPerTenant });
    }
    const { id, tenant: tenantId, context, tools } = item;
    const agent = typeof out.o_agent === 'string' ? JSON.parse(out.o_agent) as AgentSnapshot : out.o_agent!;
    // Spoken times ("next Tuesday at 3 pm") are read in the callee's zone: the lead's, else the number's
    // (src/leads/phone.ts). Given to the call's session only, so the stored context stays what the caller sent.
    const timeZone = context.time_zone ?? input.timezone ?? calleeTimeZone(input.to, null, { ambiguous: 'first' })!;
    const row: CallRow = {
      id, tenant_id: tenantId, agent_id: input.agent_id ?? null, agent, to_number: input.to, language: out.o_language!,
      context: { ...context, time_zone: timeZone }, tools, webhook_url: input.webhook_url ?? null, status: item.dialing ? 'dialing' : 'queued', ended_reason: null,
      conversation_id: out.o_conversation_id, lead_id: input.lead_id ?? null, campaign_id: input.campaign_id ?? null,
      carrier_call_id: null, instance_id: this.o.instanceId, scenario: input.scenario ?? null, created_at: out.o_created_at!,
      answered_at: null, ended_at: null, duration_seconds: null, metrics: null, extracted_data: null, actions_triggered: null,
      human_escalation: false, recording_path: null, carrier_status: null, disclosure_delivered_at: null, summary: null, summary_source: null,
    };
    return row;
  }

  /** The tenant that takes calls to `number`, if one does. */
  async inboundTenantOf(number: string): Promise<string | undefined> {
    return (await this.inbound.resolve(number))?.tenantId;
  }

  /**
   * A lead calls one of our numbers: stored ringing for the number's tenant and agent (the inbound call of
   * dispatch_calls: the concurrency limit holds, no do-not-disturb or calling-hours gate: the lead called us), with
   * what is known of the caller as its context, continuing the lead's conversation. Undefined when nobody takes
   * calls on the number, the agent is gone or the tenant is at its limit (the carrier answers busy); with
   * `throwRefusals` those last two are thrown as API errors instead.
   */
  async acceptInbound(offer: { to: string; from: string; carrierCallId: string }, o: { throwRefusals?: boolean } = {}): Promise<CallRow | undefined> {
    const route = await this.inbound.resolve(offer.to);
    if (!route) { this.o.log.info({ line: offer.to }, 'a call to a number nobody routes was refused'); return undefined; }
    const known = await callerKnown(this.o.db, route.tenantId, offer.from);
    const input: DispatchInput = {
      to: offer.from, agent_id: route.agentId, context: { ...known.context, direction: 'inbound', caller_number: offer.from },
      ...(route.webhookUrl ? { webhook_url: route.webhookUrl } : {}), ...(known.leadId ? { lead_id: known.leadId } : {}),
      ...(known.conversationId ? { conversation_id: known.conversationId } : {}), timezone: known.timezone,
    };
    const row = await this.#storeInbound(route.tenantId, input, offer.to, o);
    if (row && offer.carrierCallId) row.carrier_call_id = offer.carrierCallId;
    return row;
  }

  /**
   * A visitor calls from a browser (POST /v1/browser-calls): an inbound call of the tenant on the line `browser`,
   * with the tenant's inbound defaults (agent, webhook) or its default agent. No number is known: the caller is
   * `browser` too, and spoken times are read in the zone the page gave (else UTC). Refusals are thrown.
   */
  async acceptBrowser(tenantId: string, o: { timeZone?: string }): Promise<CallRow> {
    const defaults = await this.inbound.defaults(tenantId);
    const timezone = o.timeZone ?? 'UTC';
    const input: DispatchInput = {
      to: BROWSER_LINE, agent_id: defaults.agent_id ?? 'default', context: { direction: 'inbound', channel: BROWSER_LINE },
      ...(defaults.webhook_url ? { webhook_url: defaults.webhook_url } : {}), timezone,
    };
    return (await this.#storeInbound(tenantId, input, BROWSER_LINE, { throwRefusals: true }))!;
  }

  /** Stores a call that came in on `line`, ringing (announced); a refusal is undefined, or thrown with `throwRefusals`. */
  async #storeInbound(tenantId: string, input: DispatchInput, line: string, o: { throwRefusals?: boolean }): Promise<CallRow | undefined> {
    const call = this.prepareDispatch(tenantId, input);
    const item: DispatchItem = { ...call.item, dialing: false, direction: 'inbound', line_number: line };
    const out = await this.#dispatches.push(item);
    if (out.o_outcome !== 'ok') {
      this.o.log.warn({ line, tenant_id: tenantId, outcome: out.o_outcome }, 'an inbound call was refused');
      if (!o.throwRefusals) return undefined;
      call.start(out); // throws the refusal (agent_not_found, concurrency_limited)
    }
    const row = this.#rowOf(item, input, out);
    row.direction = 'inbound';
    row.line_number = line;
    row.status = 'ringing';
    this.o.events.announce({ type: 'status', status: 'ringing', ended_reason: null, call_id: row.id, seq: 1, at: new Date(row.created_at).toISOString() });
    return row;
  }

  async get(tenantId: string, id: string, withTransitions = false): Promise<CallRecord> {
    // with its transitions, from one snapshot: a status moving meanwhile shows in both or in neither
    const { row, transitions } = withTransitions
      ? await this.o.db.snapshot(async (q) => ({ row: await this.repo.get(tenantId, id, q), transitions: await this.repo.transitions(tenantId, id, q) }))
      : { row: await this.repo.get(tenantId, id), transitions: undefined };
    if (!row) throw new ApiError('not_found', 'call not found');
    const rec = withCompliance(row, toRecord(row, this.o.recordingUrl));
    if (transitions) rec.transitions = transitions;
    return rec;
  }

  async list(tenantId: string, filters: ListFilters): Promise<{ rows: CallRow[]; data: CallRecord[] }> {
    const rows = await this.repo.list(tenantId, filters);
    return { rows, data: rows.map((r) => withCompliance(r, toRecord(r, this.o.recordingUrl))) };
  }

  /** The audit of transactional marks (table compliance_audit), newest first. */
  async complianceAudit(tenantId: string, limit: number): Promise<ComplianceAuditRecord[]> {
    const r = await this.o.db.query<ComplianceAuditRecord>(
      `SELECT id, action, call_id, subject_hash, reason, actor, actor_kind, gates_lifted, at FROM compliance_audit
       WHERE tenant_id = $1 ORDER BY at DESC, id DESC LIMIT $2`, [tenantId, limit]);
    return r.rows.map((x) => ({ ...x, at: new Date(x.at).toISOString() }));
  }

  /**
   * The commands this service answers as a call's owner (src/calls/commands.ts): `end` (hang-up and erasure: the
   * runner hangs up and the end is awaited until stored), `transfer`. Any instance then sends them to the owner.
   */
  attachCommands(commands: CallCommands): void {
    this.#commands = commands;
    commands.handle('end', async (id, c) => ({ live: await this.#endHere(id, String(c.reason), Number(c.wait_ms ?? END_WAIT_MS)) }));
    commands.handle('transfer', async (id, c) => ({ live: await (this.#runner?.transfer(id, String(c.target), transferAskOf(c)) ?? Promise.resolve(false)) }));
  }

  /** The command channel to calls' owners (undefined before the engine attached it). */
  get commands(): CallCommands | undefined { return this.#commands; }

  /** Ends the call: a live call is hung up (ends as completed/hangup_api); one not yet answered is canceled. */
  async hangup(tenantId: string, id: string): Promise<CallRecord> {
    const row = await this.repo.get(tenantId, id);
    if (!row) throw new ApiError('not_found', 'call not found');
    if (isTerminal(row.status)) throw new ApiError('conflict', `call has already ended (${row.status})`);
    await this.#end(tenantId, id, 'hangup_api');
    return this.get(tenantId, id);
  }

  /**
   * Ends calls that are not over yet with `reason` (privacy erasure: 'erased'), the way hangup() does: each goes to
   * its owner, whose runner hangs it up (carrier hang-up, outcome, webhook) and answers once its end is stored;
   * a call whose owner is gone or does not answer within its lease is ended in storage. Returns the ids ended.
   */
  async endCalls(tenantId: string, ids: string[], reason: string): Promise<string[]> {
    const ended: string[] = [];
    await Promise.all(ids.map(async (id) => { if (await this.#end(tenantId, id, reason)) ended.push(id); }));
    return ended;
  }

  /** True once the call is over: by its owner's hang-up, or ended in storage (and fenced) when that fails. */
  async #end(tenantId: string, id: string, reason: string): Promise<boolean> {
    const sent = this.#commands
      ? await this.#commands.send(tenantId, id, { type: 'end', reason, wait_ms: END_WAIT_MS })
      : { delivered: true as const, owner: this.o.instanceId, result: { live: await this.#endHere(id, reason, END_WAIT_MS) } };
    if (!sent.delivered && sent.why === 'not_found') return false;
    if (sent.delivered && (sent.result as { live?: boolean } | null)?.live) return true;
    // not run by a live owner (gone, silent, or it does not hold the call): ended in storage, the owner fenced
    for (let attempt = 0; attempt < 3; attempt++) {
      const row = await this.repo.get(tenantId, id);
      if (!row) return false;
      if (isTerminal(row.status)) return true;
      const ended = this.#runner?.endInStorage
        ? await this.#runner.endInStorage(row, reason)
        : await this.#endRowPlain(row, reason);
      if (ended) {
        if (row.instance_id && row.instance_id !== this.o.instanceId) this.o.log.warn({ call_id: id, owner: row.instance_id, why: sent.delivered ? 'not_live' : sent.why }, 'a call was ended in storage: its instance did not end it');
        await this.#commands?.fence(row.instance_id, id);
        return true;
      }
    }
    return isTerminal((await this.repo.get(tenantId, id))?.status ?? 'completed');
  }

  /** Without a runner (a service built for reads): the status move alone. */
  async #endRowPlain(row: CallRow, reason: string): Promise<boolean> {
    const pre: CallStatus[] = ['queued', 'scheduled', 'dialing', 'ringing'];
    const moved = pre.includes(row.status)
      ? await transition(this.o.db, row.tenant_id, row.id, pre, 'canceled', reason)
      : await transition(this.o.db, row.tenant_id, row.id, 'in_progress', 'completed', reason);
    if (moved) this.o.events.announce(moved.item);
    return moved !== undefined;
  }

  /** On the owner: hangs the call up and waits (at most `waitMs`) until its end is stored; false when not live here. */
  async #endHere(id: string, reason: string, waitMs: number): Promise<boolean> {
    if (!this.#runner) return false;
    const waited = this.#endedOnce(id, waitMs);
    if (this.#runner.hangup(id, reason) && await waited.promise) return true;
    waited.cancel();
    return false;
  }

  /** Resolves true when this instance stores the end of call `id`, false after `ms`. */
  #endedOnce(id: string, ms: number): { promise: Promise<boolean>; cancel(): void } {
    let listener!: (c: EndedCall) => void;
    let timer!: NodeJS.Timeout;
    const promise = new Promise<boolean>((resolve) => {
      listener = (c) => { if (c.id === id) done(true); };
      const done = (v: boolean) => { clearTimeout(timer); this.#ended.off('ended', listener); resolve(v); };
      timer = setTimeout(() => done(false), ms);
      this.#ended.on('ended', listener);
    });
    return { promise, cancel: () => { clearTimeout(timer); this.#ended.off('ended', listener); } };
  }

  /** The owner's runner bridges the call (false: not live anywhere); an error the owner met is thrown here. */
  async #transferOnOwner(tenantId: string, id: string, target: string, ask: TransferAsk): Promise<boolean> {
    if (!this.#commands) return this.#runner?.transfer(id, target, ask) ?? false;
    const sent = await this.#commands.send(tenantId, id, { type: 'transfer', target, ...ask });
    return sent.delivered && Boolean((sent.result as { live?: boolean } | null)?.live);
  }

  /**
   * Carrier transfer to a human: handoff of the conversation, 'transfer' item, the agent stops speaking. `mode`
   * (default the agent's transfer_mode) and, warm, `summary` (default one written from the call so far).
   */
  async transfer(tenantId: string, id: string, req: { target?: string; by: string; mode?: TransferMode; summary?: string }) {
    if (req.summary && req.mode === 'cold') throw new ApiError('validation_failed', 'summary: only a warm transfer says a summary');
    const row = await this.repo.get(tenantId, id);
    if (!row) throw new ApiError('not_found', 'call not found');
    if (isTerminal(row.status)) throw new ApiError('conflict', `call has already ended (${row.status})`);
    // marked first, conditionally: a call ending meanwhile answers 409 instead of an escalation after its webhook
    if (!(await this.repo.markEscalated(tenantId, id))) throw new ApiError('conflict', 'call has already ended');
    const target = req.target ?? 'operator';
    const reason = req.target ? `transfer to ${req.target} requested` : 'transfer to a human requested';
    // queued before the transfer runs: a transfer that ends the call closes its handoff, never the other way round
    const conv = row.conversation_id ? await new ConversationRepo(this.o.db).requestHandoff(tenantId, row.conversation_id, reason) : undefined;
    const mode = req.mode ?? row.agent.transfer_mode ?? 'cold';
    const live = await this.#transferOnOwner(tenantId, id, target, { mode, ...(req.summary ? { summary: req.summary } : {}) });
    const item = await this.o.events.publish(tenantId, id, { type: 'transfer', target, by: req.by, mode });
    return { call_id: id, status: row.status, target, mode, live, conversation_id: row.conversation_id, handoff_state: conv?.handoff_state ?? null, seq: item.seq };
  }
}

/** A transfer command's mode and summary, as sent over the bus (anything else is dropped). */
function transferAskOf(c: CallCommand): TransferAsk {
  return { ...(c.mode === 'warm' || c.mode === 'cold' ? { mode: c.mode } : {}), ...(typeof c.summary === 'string' ? { summary: c.summary } : {}) };
}

export interface ComplianceAuditRecord {
  id: string; action: string; call_id: string; subject_hash: string; reason: string; actor: string; actor_kind: string;
  gates_lifted: string[]; at: string;
}

/** The call record with its transactional mark (calls.compliance), null for an ordinary call. */
function withCompliance(row: CallRow, rec: CallRecord): CallRecord {
  const c = (row as CallRow & { compliance?: CallCompliance | string | null }).compliance ?? null;
  return { ...rec, compliance: typeof c === 'string' ? JSON.parse(c) as CallCompliance : c };
}

/** dispatch_calls' answer for one item. */
export interface DispatchResult {
  o_outcome: 'ok' | 'agent_not_found' | 'concurrency_limited' | 'dnd_blocked'; o_active: number | string; o_agent: AgentSnapshot | string | null;
  o_language: string | null; o_conversation_id: string | null; o_created_at: Date | string | null;
}

/** One dispatch as dispatch_calls reads it from its jsonb array. */
export interface DispatchItem {
  id: string; tenant: string; agent_key: string; agent: AgentSnapshot | null; agent_id: string | null; to_number: string;
  language: string | null; context: Record<string, string>; tools: string[]; webhook_url: string | null;
  conversation_id: string | null; new_conversation_id: string; lead_id: string | null; lead_job_id: number | null;
  campaign_id: string | null; scenario: string | null;
  /** store the call dialing (its runner dials it at once), with both status items; false: queued */
  dialing: boolean;
  /** apply the do-not-disturb rule (dnd_blocks) at this instant; null: gated before (leads, campaigns) or lifted */
  dnd_at: string | null;
  /** a transactional mark, stored on the call and audited as `audit_id` */
  compliance: CallCompliance | null;
  audit_id: string | null;
  /** an inbound call (stored ringing) and our number it came in on; left out: outbound */
  direction?: 'inbound';
  line_number?: string;
}

const DISPATCH_BATCH_SQL = `SELECT o_i, o_outcome, o_active, o_agent, o_language, o_conversation_id, o_created_at
  FROM dispatch_calls($1::jsonb, $2, $3)`;
