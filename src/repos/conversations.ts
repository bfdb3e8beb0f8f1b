/** Conversations and their messages (demo loop, lead conversations, call conversations, handoffs). */
import type { Queryable } from '../db/db.js';
import type { OutageBuffer } from '../db/outage.js';
import { newId } from '../ids.js';
import type { SummarySource } from '../dialog/summary.js';

export type ConversationState = 'active' | 'handoff' | 'closed';
/** waiting for an operator, with the operator who accepted it, resolved (src/handoffs/README.md) */
export type HandoffState = 'waiting' | 'with_operator' | 'resolved';
export type MessageRole = 'agent' | 'caller' | 'operator' | 'system';

export interface Conversation {
  id: string;
  tenant_id: string | null;
  domain: string | null;
  state: ConversationState;
  handoff_state: HandoffState | null;
  handoff_reason: string | null;
  accepted_by: string | null;
  call_id: string | null;
  lead_id: string | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface Message { id: number; role: MessageRole; text: string; meta: Record<string, unknown>; at: string }

const iso = (v: unknown) => (v == null ? null : v instanceof Date ? v.toISOString() : String(v));
const COLS = 'id, tenant_id, domain, state, handoff_state, handoff_reason, accepted_by, call_id, lead_id, expires_at, created_at, updated_at';
const row = (r: Conversation): Conversation => ({ ...r, expires_at: iso(r.expires_at), created_at: iso(r.created_at)!, updated_at: iso(r.updated_at)! });

export class ConversationRepo {
  /**
   * `outage`: keep appended messages through a database outage, written in order when it ends (a live call's
   * repo, src/db/outage.ts); without it an append fails like any query.
   */
  constructor(private db: Queryable, private readonly outage?: OutageBuffer) {}

  async create(c: { tenantId: string | null; domain?: string | null; callId?: string | null; leadId?: string | null; expiresAt?: Date | null }): Promise<Conversation> {
    const r = await this.db.query<Conversation>(
      `INSERT INTO conversations (id, tenant_id, domain, call_id, lead_id, expires_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLS}`,
      [newId('conv'), c.tenantId, c.domain ?? null, c.callId ?? null, c.leadId ?? null, c.expiresAt ?? null],
    );
    return row(r.rows[0]);
  }

  /** Tenant-scoped read; tenantId null reads an anonymous conversation only. */
  async get(tenantId: string | null, id: string, q: Queryable = this.db): Promise<Conversation | undefined> {
    const r = await q.query<Conversation>(
      `SELECT ${COLS} FROM conversations WHERE id = $1 AND tenant_id IS NOT DISTINCT FROM $2`, [id, tenantId]);
    return r.rows[0] && row(r.rows[0]);
  }

  /** The agent ended the conversation (goodbye, opt-out…): closed, so later turns are refused. Only from active. */
  async closeByAgent(id: string): Promise<Conversation | undefined> {
    const r = await this.db.query<Conversation>(
      `UPDATE conversations SET state = 'closed', updated_at = now() WHERE id = $1 AND state = 'active' RETURNING ${COLS}`, [id]);
    return r.rows[0] && row(r.rows[0]);
  }

  /** The summary written when the conversation ended (null before), and who wrote it. */
  async summary(id: string): Promise<{ summary: string | null; summary_source: SummarySource | null }> {
    const r = await this.db.query<{ summary: string | null; summary_source: SummarySource | null }>(
      'SELECT summary, summary_source FROM conversations WHERE id = $1', [id]);
    return r.rows[0] ?? { summary: null, summary_source: null };
  }

  /** Stores the summary once: a second writer (two readers of a conversation an operator closed) keeps the first. */
  async setSummary(id: string, summary: string, source: SummarySource): Promise<void> {
    await this.db.query('UPDATE conversations SET summary = $2, summary_source = $3 WHERE id = $1 AND summary IS NULL', [id, summary, source]);
  }

  async setCall(tenantId: string, id: string, callId: string): Promise<void> {
    await this.db.query('UPDATE conversations SET call_id = $3, updated_at = now() WHERE id = $1 AND tenant_id = $2', [id, tenantId, callId]);
  }

  async append(conversationId: string, tenantId: string | null, role: MessageRole, text: string, meta: Record<string, unknown> = {}): Promise<Message> {
    const write = () => this.#append(conversationId, tenantId, role, text, meta);
    return this.outage ? this.outage.keep(`conversation:${conversationId}`, write) : write();
  }

  /** One statement, so a write tried again after an outage never stores half of itself. */
  async #append(conversationId: string, tenantId: string | null, role: MessageRole, text: string, meta: Record<string, unknown>): Promise<Message> {
    const r = await this.db.query<Message>(
      `WITH m AS (
         INSERT INTO conversation_messages (conversation_id, tenant_id, role, text, meta) VALUES ($1, $2, $3, $4, $5::jsonb)
         RETURNING id, role, text, meta, at),
       touched AS (UPDATE conversations SET updated_at = now() WHERE id = $1)
       SELECT * FROM m`, [conversationId, tenantId, role, text, JSON.stringify(meta)]);
    const m = r.rows[0];
    return { ...m, id: Number(m.id), at: iso(m.at)! };
  }

  async messages(conversationId: string): Promise<Message[]> {
    const r = await this.db.query<Message>('SELECT id, role, text, meta, at FROM conversation_messages WHERE conversation_id = $1 ORDER BY id', [conversationId]);
    return r.rows.map((m) => ({ ...m, id: Number(m.id), at: iso(m.at)! }));
  }

  /**
   * Moves a conversation into the handoff state (waiting for an operator). Idempotent: a conversation already
   * in handoff keeps its state. A conversation an operator handed back to the agent opens a new handoff (new
   * reason, queue time, nobody on it yet). Returns the conversation, or undefined when it is not the tenant's.
   */
  async requestHandoff(tenantId: string, id: string, reason: string): Promise<Conversation | undefined> {
    const r = await this.db.query<Conversation>(
      `UPDATE conversations SET state = 'handoff',
         handoff_state = CASE WHEN state = 'handoff' THEN handoff_state ELSE 'waiting' END,
         handoff_reason = CASE WHEN state = 'handoff' THEN handoff_reason ELSE $3 END,
         accepted_by = CASE WHEN state = 'handoff' THEN accepted_by END,
         handoff_queued_at = CASE WHEN state = 'handoff' THEN handoff_queued_at ELSE now() END,
         handoff_accepted_at = CASE WHEN state = 'handoff' THEN handoff_accepted_at END,
         handoff_ended_at = CASE WHEN state = 'handoff' THEN handoff_ended_at END,
         updated_at = now()
       WHERE id = $1 AND tenant_id = $2 RETURNING ${COLS}`, [id, tenantId, reason]);
    return r.rows[0] && row(r.rows[0]);
  }
}
