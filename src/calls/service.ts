/**
 * deps.calls: dispatch, read, list, hang up and transfer calls of a tenant; tells listeners when a call ends.
 * Dispatch stores the call (status dialing, migration 050) under the tenant's concurrency limit and hands it to the runner,
 * which drives the carrier, the media session and the end of the call on this instance.
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
import { CallRepo, toRecord, type CallRow } from './repo.js';
import { transition } from './lifecycle.js';
import type { AgentSnapshot, CallRecord, CallStatus, DispatchInput, ListFilters } from './types.js';
import { isTerminal } from './types.js';

export interface CallRunnerPort {
  /** starts driving a stored call (asynchronously); never throws */
  start(row: CallRow): void;
  /** true when the call lives on this instance and was told to hang up */
  hangup(callId: string, reason: string): boolean;
  /** true when the call lives on this instance and the agent was stopped */
  transfer(callId: string, target: string): Promise<boolean>;
}

/** A call that reached its final status on this instance. */
export interface EndedCall { id: string; tenant_id: string; status: CallStatus; ended_reason: string | null; campaign_id: string | null }

export interface CallServiceOptions {
  db: Db; log: Logger; agents: AgentRepo; events: CallEventSink; maxConcurrentPerTenant: number; instanceId: string;
  recordingUrl: (callId: string) => string;
}

export class CallService {
  readonly repo: CallRepo;
  readonly #ended = new EventEmitter();
  #runner?: CallRunnerPort;
  /** Dispatches arriving while a batch is in flight go together: one statement and one commit (migrations 012-013, 045, 048-050). */
  readonly #dispatches: Batcher<DispatchItem, DispatchResult>;
  constructor(private readonly o: CallServiceOptions) {
    this.repo = new CallRepo(o.db);
    this.#ended.setMaxListeners(0);
    // One batch in flight: a batch holds its tenants' dispatch lock until commit, so a second one in flight would
    // mostly wait for that lock inside PostgreSQL, holding a connection and splitting the queue into smaller, costlier
    // batches (at 1,500 dispatches/s: PostgreSQL CPU 0.45 ms per dispatch with one, 0.50 with two; p99 20-23 vs 24-28 ms).
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
   * One statement (dispatch_calls, migrations 012-013, 045 and 048-050, shared with the dispatches that arrive meanwhile): agent
   * snapshot, the tenant's dispatch lock, the exact active count, the conversation (the lead's, or a new one;
   * linked both ways), the call and its first live items (`queued` seq 1 and, with a runner, `dialing` seq 2: also
   * its first transitions). Its synchronous commit makes the dispatch durable before the caller hears 201; the
   * items are then only announced on the bus.
   */
  async dispatch(tenantId: string, input: DispatchInput): Promise<CallRecord> {
    const call = this.prepareDispatch(tenantId, input);
    return call.start(await this.#dispatches.push(call.item));
  }

  /** The limit dispatch_calls is run with (a statement that dispatches calls of its own passes it on). */
  get maxConcurrentPerTenant(): number { return this.o.maxConcurrentPerTenant; }

  /**
   * A dispatch in two halves, for a statement that stores the call together with rows of its own (create_leads,
   * migration 045): `item` goes into dispatch_calls there, and `start` takes its answer after that statement
   * committed: refusals become errors; a stored call is announced (its seq 1 and 2 items) and handed to the runner.
   */
  prepareDispatch(tenantId: string, input: DispatchInput): { item: DispatchItem; start(out: DispatchResult): CallRecord } {
    const id = newId('call');
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
      // The runner dials every call it is handed at once, so the call is stored dialing (migration 050).
      dialing: this.#runner !== undefined,
    };
    return { item, start: (out) => this.#started(item, input, out) };
  }

  #started(item: DispatchItem, input: DispatchInput, out: DispatchResult): CallRecord {
    if (out.o_outcome === 'agent_not_found') throw new ApiError('not_found', `agent ${input.agent_id} not found`);
    if (out.o_outcome === 'concurrency_limited') {
      throw new ApiError('concurrency_limited', `the tenant already has ${Number(out.o_active)} active calls (limit ${this.o.maxConcurrentPerTenant})`,
        { retryable: true, retryAfterSeconds: 5, limit: this.o.maxConcurrentPerTenant });
    }
    const { id, tenant: tenantId, context, tools } = item;
    const agent = typeof out.o_agent === 'string' ? JSON.parse(out.o_agent) as AgentSnapshot : out.o_agent!;
    const row: CallRow = {
      id, tenant_id: tenantId, agent_id: input.agent_id ?? null, agent, to_number: input.to, language: out.o_language!,
      context, tools, webhook_url: input.webhook_url ?? null, status: item.dialing ? 'dialing' : 'queued', ended_reason: null,
      conversation_id: out.o_conversation_id, lead_id: input.lead_id ?? null, campaign_id: input.campaign_id ?? null,
      carrier_call_id: null, instance_id: this.o.instanceId, scenario: input.scenario ?? null, created_at: out.o_created_at!,
      answered_at: null, ended_at: null, duration_seconds: null, metrics: null, extracted_data: null, actions_triggered: null,
      human_escalation: false, recording_path: null,
    };
    const at = new Date(out.o_created_at!).toISOString();
    this.o.events.announce({ type: 'status', status: 'queued', ended_reason: null, call_id: id, seq: 1, at });
    if (item.dialing) this.o.events.announce({ type: 'status', status: 'dialing', ended_reason: null, call_id: id, seq: 2, at });
    this.#runner?.start(row);
    return toRecord(row, this.o.recordingUrl);
  }

  async get(tenantId: string, id: string, withTransitions = false): Promise<CallRecord> {
    const row = await this.repo.get(tenantId, id);
    if (!row) throw new ApiError('not_found', 'call not found');
    const rec = toRecord(row, this.o.recordingUrl);
    if (withTransitions) rec.transitions = await this.repo.transitions(tenantId, id);
    return rec;
  }

  async list(tenantId: string, filters: ListFilters): Promise<{ rows: CallRow[]; data: CallRecord[] }> {
    const rows = await this.repo.list(tenantId, filters);
    return { rows, data: rows.map((r) => toRecord(r, this.o.recordingUrl)) };
  }

  /** Ends the call: a live call is hung up (ends as completed/hangup_api); one not yet answered is canceled. */
  async hangup(tenantId: string, id: string): Promise<CallRecord> {
    const row = await this.repo.get(tenantId, id);
    if (!row) throw new ApiError('not_found', 'call not found');
    if (isTerminal(row.status)) throw new ApiError('conflict', `call has already ended (${row.status})`);
    if (!this.#runner?.hangup(id, 'hangup_api')) {
      // not driven by this process (or not started): end it in storage so it frees its slot
      const pre: CallStatus[] = ['queued', 'scheduled', 'dialing', 'ringing'];
      const moved = pre.includes(row.status)
        ? await transition(this.o.db, tenantId, id, pre, 'canceled', 'hangup_api')
        : await transition(this.o.db, tenantId, id, 'in_progress', 'completed', 'hangup_api');
      if (moved) this.o.events.announce(moved.item);
    }
    return this.get(tenantId, id);
  }

  /** Carrier transfer to a human: handoff of the conversation, 'transfer' item, the agent stops speaking. */
  async transfer(tenantId: string, id: string, req: { target?: string; by: string }) {
    const row = await this.repo.get(tenantId, id);
    if (!row) throw new ApiError('not_found', 'call not found');
    if (isTerminal(row.status)) throw new ApiError('conflict', `call has already ended (${row.status})`);
    const target = req.target ?? 'operator';
    const live = await (this.#runner?.transfer(id, target) ?? Promise.resolve(false));
    const reason = req.target ? `transfer to ${req.target} requested` : 'transfer to a human requested';
    const conv = row.conversation_id ? await new ConversationRepo(this.o.db).requestHandoff(tenantId, row.conversation_id, reason) : undefined;
    await this.repo.markEscalated(tenantId, id);
    const item = await this.o.events.publish(tenantId, id, { type: 'transfer', target, by: req.by });
    return { call_id: id, status: row.status, target, live, conversation_id: row.conversation_id, handoff_state: conv?.handoff_state ?? null, seq: item.seq };
  }
}

/** dispatch_calls' answer for one item (migration 013). */
export interface DispatchResult {
  o_outcome: 'ok' | 'agent_not_found' | 'concurrency_limited'; o_active: number | string; o_agent: AgentSnapshot | string | null;
  o_language: string | null; o_conversation_id: string | null; o_created_at: Date | string | null;
}

/** One dispatch as dispatch_calls (migration 013) reads it from its jsonb array. */
export interface DispatchItem {
  id: string; tenant: string; agent_key: string; agent: AgentSnapshot | null; agent_id: string | null; to_number: string;
  language: string | null; context: Record<string, string>; tools: string[]; webhook_url: string | null;
  conversation_id: string | null; new_conversation_id: string; lead_id: string | null; lead_job_id: number | null;
  campaign_id: string | null; scenario: string | null;
  /** store the call dialing (its runner dials it at once), with both status items; false: queued (migration 050) */
  dialing: boolean;
}

const DISPATCH_BATCH_SQL = `SELECT o_i, o_outcome, o_active, o_agent, o_language, o_conversation_id, o_created_at
  FROM dispatch_calls($1::jsonb, $2, $3)`;
