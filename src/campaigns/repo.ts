/** Campaign rows, their contacts, progress and the state machine (all tenant-scoped). */
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../ids.js';
import { conflict, notFound } from '../errors.js';
import type { CampaignInput, RetryPolicy } from './schema.js';

export type CampaignState = 'draft' | 'running' | 'paused' | 'completed' | 'canceled';
export type CampaignAction = 'start' | 'pause' | 'resume' | 'cancel';

/** The whole state machine: action -> states it may leave from, and where it goes. "completed" is set by the dialer. */
export const TRANSITIONS: Record<CampaignAction, { from: CampaignState[]; to: CampaignState }> = {
  start: { from: ['draft'], to: 'running' },
  pause: { from: ['running'], to: 'paused' },
  resume: { from: ['paused'], to: 'running' },
  cancel: { from: ['draft', 'running', 'paused'], to: 'canceled' },
};

export interface Campaign {
  id: string; name: string; agent_id: string; state: CampaignState;
  calling_window: { start: string; end: string }; timezone: string; max_concurrency: number;
  retry: RetryPolicy; tools: string[] | null; webhook_url: string | null;
  created_at: string; updated_at: string; started_at: string | null; finished_at: string | null;
  progress?: Record<string, number>;
}

const COLS = 'id, name, agent_id, state, window_start, window_end, timezone, max_concurrency, retry, tools, webhook_url, created_at, updated_at, started_at, finished_at';
const iso = (v: unknown) => (v == null ? null : new Date(v as string).toISOString());
type Row = Record<string, unknown>;
const toCampaign = (r: Row): Campaign => ({
  id: r.id as string, name: r.name as string, agent_id: r.agent_id as string, state: r.state as CampaignState,
  calling_window: { start: r.window_start as string, end: r.window_end as string }, timezone: r.timezone as string,
  max_concurrency: Number(r.max_concurrency), retry: r.retry as RetryPolicy, tools: (r.tools as string[] | null) ?? null,
  webhook_url: (r.webhook_url as string | null) ?? null, created_at: iso(r.created_at)!, updated_at: iso(r.updated_at)!,
  started_at: iso(r.started_at), finished_at: iso(r.finished_at),
});

export class CampaignRepo {
  constructor(private db: Db) {}

  async create(tenant: string, input: CampaignInput, createdBy: string): Promise<Campaign> {
    const id = newId('cmp');
    // a number listed twice is one contact: "every contact dialed once"
    const contacts = [...new Map(input.contacts.map((c) => [c.phone, c])).values()];
    return this.db.transaction(async (tx) => {
      const r = await tx.query<Row>(
        `INSERT INTO campaigns (id, tenant_id, name, agent_id, window_start, window_end, timezone, max_concurrency, retry, tools, webhook_url, created_by)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9::jsonb,$10::jsonb,$11,$12) RETURNING ${COLS}`,
        [id, tenant, input.name, input.agent_id, input.calling_window.start, input.calling_window.end, input.timezone,
          input.max_concurrency, JSON.stringify(input.retry), input.tools ? JSON.stringify(input.tools) : null, input.webhook_url ?? null, createdBy]);
      // batched multi-row inserts: 500 contacts x 6 params stays far below the 65,535 parameter limit
      for (let i = 0; i < contacts.length; i += 500) {
        const chunk = contacts.slice(i, i + 500);
        const values: unknown[] = [];
        const rows = chunk.map((c, j) => {
          values.push(newId('cct'), id, tenant, c.phone, JSON.stringify(c.context ?? {}), i + j);
          const b = j * 6;
          return `($${b + 1},$${b + 2},$${b + 3},$${b + 4},$${b + 5}::jsonb,$${b + 6})`;
        });
        await tx.query(`INSERT INTO campaign_contacts (id, campaign_id, tenant_id, phone, context, position) VALUES ${rows.join(',')}`, values);
      }
      return { ...toCampaign(r.rows[0]), progress: { total: contacts.length, pending: contacts.length } };
    });
  }

  async list(tenant: string, limit = 100): Promise<Campaign[]> {
    const r = await this.db.query<Row>(`SELECT ${COLS} FROM campaigns WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [tenant, limit]);
    return r.rows.map(toCampaign);
  }

  async get(tenant: string, id: string): Promise<Campaign> {
    // the state and the counts from one snapshot (a cancel moves both at once)
    return this.db.snapshot(async (q) => {
      const r = await q.query<Row>(`SELECT ${COLS} FROM campaigns WHERE tenant_id = $1 AND id = $2`, [tenant, id]);
      if (!r.rows[0]) throw notFound('campaign');
      return { ...toCampaign(r.rows[0]), progress: await this.progress(tenant, id, q) };
    });
  }

  /** Counts of contacts by state, plus total and attempts so far. */
  async progress(tenant: string, id: string, q: Queryable = this.db): Promise<Record<string, number>> {
    const r = await q.query<{ state: string; n: number; attempts: number }>(
      'SELECT state, count(*)::int AS n, sum(attempts)::int AS attempts FROM campaign_contacts WHERE tenant_id = $1 AND campaign_id = $2 GROUP BY state', [tenant, id]);
    const out: Record<string, number> = { total: 0, attempts: 0, pending: 0, dialing: 0, retry: 0, done: 0, failed: 0, blocked: 0, canceled: 0 };
    for (const x of r.rows) { out[x.state] = x.n; out.total += x.n; out.attempts += x.attempts; }
    return out;
  }

  /** Applies an action atomically (conditional UPDATE): a concurrent or illegal move is a 409, never a lost update. */
  async transition(tenant: string, id: string, action: CampaignAction): Promise<Campaign> {
    const t = TRANSITIONS[action];
    const stamp = action === 'start' ? ', started_at = now()' : action === 'cancel' ? ', finished_at = now()' : '';
    await this.db.transaction(async (tx) => {
      const r = await tx.query(`UPDATE campaigns SET state = $3, updated_at = now()${stamp} WHERE tenant_id = $1 AND id = $2 AND state = ANY($4::text[])`,
        [tenant, id, t.to, t.from]);
      if (r.rowCount === 0) {
        const cur = await tx.query<{ state: string }>('SELECT state FROM campaigns WHERE tenant_id = $1 AND id = $2', [tenant, id]);
        if (!cur.rows[0]) throw notFound('campaign');
        throw conflict(`cannot ${action} a campaign that is ${cur.rows[0].state}`, { state: cur.rows[0].state });
      }
      // contacts not yet dialed are canceled; calls in flight finish and record their outcome
      if (action === 'cancel') await tx.query(`UPDATE campaign_contacts SET state = 'canceled', updated_at = now() WHERE campaign_id = $1 AND state IN ('pending','retry')`, [id]);
    });
    return this.get(tenant, id);
  }
}
