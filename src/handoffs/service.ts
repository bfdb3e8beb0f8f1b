/**
 * Handoffs: conversations in state 'handoff' and their operator state machine (all moves in one place):
 *
 *   waiting --accept(op)--> with_operator(op) --resolve(op | admin, then)--> resolved
 *                            └─ reply(op) keeps 'with_operator'; only the accepting operator may reply
 *   then = 'agent': the conversation is active again and the agent answers the next turn;
 *   then = 'close': the conversation is closed.
 *
 * The visitor's turns during a handoff go to the queue and the operator (visitor.ts), never to the agent.
 *
 * Each move is one conditional UPDATE (WHERE handoff_state = <expected> …), so of two operators accepting at
 * once exactly one row update wins and the other gets 409. Every move is recorded in handoff_events
 * (who, when, from, to) in the same transaction.
 */
import type { Db, Queryable } from '../db/db.js';
import { ApiError, conflict, forbidden, notFound } from '../errors.js';
import { ConversationRepo, type Conversation, type HandoffState } from '../repos/conversations.js';
import type { CallEventSink } from '../stream/types.js';
import type { Principal } from '../auth/tokens.js';
import type { OperatorAudioTicket, OperatorCallControl } from './call_control.js';

export interface HandoffEvent { action: string; from_state: string | null; to_state: string | null; by: string; at: string }
/** What an operator chose when resolving: the agent takes the conversation over again, or it closes. */
export type Resolution = 'agent' | 'close';
export interface HandoffView {
  id: string; conversation_id: string; handoff_state: HandoffState; reason: string | null; accepted_by: string | null;
  /** when it joined the queue, when an operator took it, when it was resolved (ISO 8601, null until then) */
  queued_at: string | null; accepted_at: string | null; ended_at: string | null;
  /** once resolved: who has the conversation now */
  resolution: Resolution | null;
  call_id: string | null; lead_id: string | null; domain: string | null; created_at: string; updated_at: string; history?: HandoffEvent[];
}
type Row = Conversation & { handoff_queued_at: unknown; handoff_accepted_at: unknown; handoff_ended_at: unknown };

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());
const isoOrNull = (v: unknown) => (v == null ? null : iso(v));
export const HANDOFF_COLS = 'id, tenant_id, domain, state, handoff_state, handoff_reason, accepted_by, call_id, lead_id, expires_at, created_at, updated_at, '
  + 'handoff_queued_at, handoff_accepted_at, handoff_ended_at';
const COLS = HANDOFF_COLS;
/** Not a call's handoff, or a call still under way: operator moves on a call that has ended answer 409. */
const CALL_LIVE = `(call_id IS NULL OR EXISTS (SELECT 1 FROM calls WHERE calls.id = conversations.call_id AND calls.status IN ('queued', 'dialing', 'ringing', 'in_progress')))`;
const callLive = async (q: Queryable, callId: string) =>
  (await q.query(`SELECT 1 FROM calls WHERE id = $1 AND status IN ('queued', 'dialing', 'ringing', 'in_progress')`, [callId])).rows.length > 0;
/** the open states: in the queue, or with an operator */
export const OPEN: readonly HandoffState[] = ['waiting', 'with_operator'];

export function handoffView(c: Row, history?: HandoffEvent[]): HandoffView {
  return {
    id: c.id, conversation_id: c.id, handoff_state: c.handoff_state!, reason: c.handoff_reason, accepted_by: c.accepted_by,
    queued_at: isoOrNull(c.handoff_queued_at), accepted_at: isoOrNull(c.handoff_accepted_at), ended_at: isoOrNull(c.handoff_ended_at),
    resolution: c.handoff_state === 'resolved' ? (c.state === 'active' || c.state === 'handoff' ? 'agent' : 'close') : null,
    call_id: c.call_id, lead_id: c.lead_id, domain: c.domain, created_at: iso(c.created_at), updated_at: iso(c.updated_at), ...(history ? { history } : {}),
  };
}

export class HandoffService {
  /** `calls`: the owner of live calls, told of operator moves on a call's handoff (absent: conversations only) */
  constructor(private readonly db: Db, private readonly events: CallEventSink, private readonly calls?: OperatorCallControl) {}

  /** Default: open handoffs (waiting and with an operator), longest waiting first; `state` narrows, including 'resolved'. */
  async list(tenantId: string, state: HandoffState | undefined, limit: number): Promise<HandoffView[]> {
    const r = await this.db.query<Row>(
      `SELECT ${COLS} FROM conversations WHERE tenant_id = $1 AND handoff_state IS NOT NULL
         AND (CASE WHEN $2::text IS NULL THEN handoff_state IN ('waiting', 'with_operator') ELSE handoff_state = $2 END)
       ORDER BY COALESCE(handoff_queued_at, updated_at), id LIMIT $3`, [tenantId, state ?? null, limit]);
    return r.rows.map((c) => handoffView(c));
  }

  async get(tenantId: string, id: string): Promise<HandoffView> {
    // the state and its history from one snapshot (an accept commits both at once)
    return this.db.snapshot(async (q) => {
      const c = (await q.query<Row>(`SELECT ${COLS} FROM conversations WHERE id = $1 AND tenant_id = $2`, [id, tenantId])).rows[0];
      if (!c || !c.handoff_state) throw notFound('handoff');
      return handoffView(c, await this.history(q, tenantId, id));
    });
  }

  /** A call's handoff: the operator takes the call (the agent stops speaking). A call that has ended answers 409. */
  async accept(p: Principal, id: string): Promise<HandoffView> {
    const view = await this.#move(p, id, 'accept', `handoff_state = 'waiting' AND state = 'handoff' AND ${CALL_LIVE}`,
      `handoff_state = 'with_operator', accepted_by = $3, handoff_accepted_at = now()`, 'waiting', 'with_operator');
    if (view.call_id) await this.calls?.joined(p.tenantId, view.call_id, p.sub);
    return view;
  }

  /**
   * Resolve: the accepting operator, or an admin (a supervisor closing a handoff an operator left). `then` says who
   * has the conversation afterwards: the agent again (state active) or nobody (closed).
   */
  async resolve(p: Principal, id: string, then: Resolution = 'close'): Promise<HandoffView> {
    const who = p.role === 'admin' ? '$3::text IS NOT NULL' : 'accepted_by = $3'; // $3 is always bound (the caller's sub)
    const view = await this.#move(p, id, then === 'agent' ? 'resolve_to_agent' : 'resolve', `handoff_state = 'with_operator' AND state = 'handoff' AND ${who} AND ${CALL_LIVE}`,
      `handoff_state = 'resolved', handoff_ended_at = now(), state = '${then === 'agent' ? 'active' : 'closed'}'`, 'with_operator', 'resolved');
    // on a call: the agent takes it again, or the call ends, transferred to the operator
    if (view.call_id) await this.calls?.left(p.tenantId, view.call_id, then === 'agent' ? 'agent' : 'end');
    return view;
  }

  /** Appends the operator's text to the conversation and, for a call's conversation, to the call's live stream. */
  async reply(p: Principal, id: string, text: string): Promise<HandoffView & { message: { id: number; text: string; at: string }; published: boolean | null }> {
    const { view, message } = await this.db.transaction(async (tx) => {
      const r = await tx.query<Row>(
        `SELECT ${COLS} FROM conversations WHERE id = $1 AND tenant_id = $2 FOR UPDATE`, [id, p.tenantId]);
      const c = r.rows[0];
      if (!c || !c.handoff_state) throw notFound('handoff');
      if (c.handoff_state !== 'with_operator' || c.state !== 'handoff') throw this.#illegal('reply', c);
      if (c.call_id && !(await callLive(tx, c.call_id))) throw conflict('the call has ended; nobody is on the line', { handoff_state: c.handoff_state, call_ended: true });
      if (c.accepted_by !== p.sub) throw conflict('only the operator who accepted this handoff may reply', { handoff_state: c.handoff_state });
      const message = await new ConversationRepo(tx).append(id, p.tenantId, 'operator', text, { by: p.sub });
      await this.#record(tx, p, id, 'reply', 'with_operator', 'with_operator');
      return { view: handoffView(c, await this.history(tx, p.tenantId, id)), message };
    });
    // The reply is stored either way; a live stream that cannot take it (call row erased) is reported, not fatal.
    let published: boolean | null = null;
    if (view.call_id) {
      await this.calls?.spoke(p.tenantId, view.call_id, text); // the caller hears it
      published = await this.events.publish(p.tenantId, view.call_id, { type: 'transcript', speaker: 'operator', text, latencyMs: 0, partial: false })
        .then(() => true, () => false);
    }
    return { ...view, message: { id: message.id, text: message.text, at: message.at }, published };
  }

  /**
   * The accepting operator joins a call's audio: a ticket (the owner instance's operator socket and a single-use
   * capability) for their softphone. 403 for anyone else; 409 when it is not a call, not with an operator, the
   * call has ended, or the operator's audio is already joined.
   */
  async audio(p: Principal, id: string): Promise<OperatorAudioTicket & { call_id: string }> {
    const c = (await this.db.query<Row>(`SELECT ${COLS} FROM conversations WHERE id = $1 AND tenant_id = $2`, [id, p.tenantId])).rows[0];
    if (!c || !c.handoff_state) throw notFound('handoff');
    if (!c.call_id) throw conflict('a conversation without a call has no audio to join', { handoff_state: c.handoff_state });
    if (c.handoff_state !== 'with_operator' || c.state !== 'handoff') throw this.#illegal('join the audio of', c);
    if (!(await callLive(this.db, c.call_id))) throw conflict('the call has ended; nobody is on the line', { handoff_state: c.handoff_state, call_ended: true });
    if (c.accepted_by !== p.sub) throw forbidden('only the operator who accepted this handoff may join its audio');
    const ticket = await this.calls?.audio(p.tenantId, c.call_id, p.sub);
    if (!ticket) throw conflict('the call is not live, or your audio is joined already', { handoff_state: c.handoff_state });
    return { call_id: c.call_id, ...ticket };
  }

  async history(q: Queryable, tenantId: string, id: string): Promise<HandoffEvent[]> {
    const r = await q.query<HandoffEvent & { by_sub: string }>(
      'SELECT action, from_state, to_state, by_sub, at FROM handoff_events WHERE conversation_id = $1 AND tenant_id = $2 ORDER BY id', [id, tenantId]);
    return r.rows.map(({ by_sub, ...e }) => ({ ...e, by: by_sub, at: iso(e.at) }));
  }

  async #move(p: Principal, id: string, action: string, guard: string, set: string, from: HandoffState, to: HandoffState): Promise<HandoffView> {
    return this.db.transaction(async (tx) => {
      const r = await tx.query<Row>(
        `UPDATE conversations SET ${set}, updated_at = now() WHERE id = $1 AND tenant_id = $2 AND ${guard} RETURNING ${COLS}`, [id, p.tenantId, p.sub]);
      if (!r.rows[0]) {
        const c = await new ConversationRepo(tx).get(p.tenantId, id);
        if (!c || !c.handoff_state) throw notFound('handoff');
        throw this.#illegal(action, c);
      }
      await this.#record(tx, p, id, action, from, to);
      return handoffView(r.rows[0], await this.history(tx, p.tenantId, id));
    });
  }

  #illegal(action: string, c: Conversation): ApiError {
    if (c.call_id && c.handoff_state !== 'resolved' && c.state === 'handoff') {
      // the guard failed on the call (state and operator were right, or would have been)
      return conflict(`cannot ${action}: the call has ended or is not yours to ${action}`, { handoff_state: c.handoff_state, accepted_by: c.accepted_by });
    }
    const who = c.handoff_state === 'with_operator' ? ` by ${c.accepted_by}` : '';
    return conflict(`cannot ${action} a handoff that is ${c.handoff_state}${who}`, { handoff_state: c.handoff_state, accepted_by: c.accepted_by });
  }

  async #record(tx: Queryable, p: Principal, id: string, action: string, from: string, to: string): Promise<void> {
    await tx.query('INSERT INTO handoff_events (conversation_id, tenant_id, action, from_state, to_state, by_sub) VALUES ($1,$2,$3,$4,$5,$6)',
      [id, p.tenantId, action, from, to, p.sub]);
  }
}
