/**
 * Calls that come in: a lead calls back one of our numbers. Where such a call goes is a setting of the tenant that
 * owns the number (table inbound_numbers: a number belongs to one tenant): the number's own agent and webhook, else
 * the tenant's inbound defaults (inbound_defaults), else the tenant's `default` agent and no webhook. What we know of
 * the caller (their lead, their last call's fields) is the context the call starts with.
 */
import type { Queryable } from '../db/db.js';
import { LeadRepo } from '../leads/lead_repo.js';
import { lastCallTo } from './repo.js';

export interface InboundSetting { agent_id: string | null; webhook_url: string | null }
export interface InboundNumber extends InboundSetting { number: string; created_at: string; updated_at: string }

/** Where a call to `number` goes. */
export interface InboundRoute { tenantId: string; agentId: string; webhookUrl: string | null }

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));
const toNumber = (r: InboundNumber): InboundNumber => ({ ...r, created_at: iso(r.created_at), updated_at: iso(r.updated_at) });

export class InboundRouting {
  constructor(private readonly db: Queryable) {}

  async resolve(number: string): Promise<InboundRoute | undefined> {
    const r = await this.db.query<{ tenant_id: string; agent_id: string | null; webhook_url: string | null }>(
      `SELECT n.tenant_id, COALESCE(n.agent_id, d.agent_id) AS agent_id, COALESCE(n.webhook_url, d.webhook_url) AS webhook_url
         FROM inbound_numbers n LEFT JOIN inbound_defaults d ON d.tenant_id = n.tenant_id WHERE n.line = $1`, [number]);
    const row = r.rows[0];
    return row && { tenantId: row.tenant_id, agentId: row.agent_id ?? 'default', webhookUrl: row.webhook_url };
  }

  /** The tenant's inbound defaults (agent, webhook); nulls when it set none. */
  async defaults(tenantId: string): Promise<InboundSetting> {
    const d = await this.db.query<InboundSetting>('SELECT agent_id, webhook_url FROM inbound_defaults WHERE tenant_id = $1', [tenantId]);
    return d.rows[0] ?? { agent_id: null, webhook_url: null };
  }

  async list(tenantId: string): Promise<{ defaults: InboundSetting; numbers: InboundNumber[] }> {
    const defaults = await this.defaults(tenantId);
    const n = await this.db.query<InboundNumber>(
      'SELECT line AS number, agent_id, webhook_url, created_at, updated_at FROM inbound_numbers WHERE tenant_id = $1 ORDER BY line', [tenantId]);
    return { defaults, numbers: n.rows.map(toNumber) };
  }

  /** Claims `number` for the tenant (or changes its setting); 'taken' when another tenant has it. */
  async putNumber(tenantId: string, number: string, s: InboundSetting): Promise<{ number: InboundNumber; created: boolean } | 'taken'> {
    const r = await this.db.query<InboundNumber & { inserted: boolean }>(
      `INSERT INTO inbound_numbers (line, tenant_id, agent_id, webhook_url) VALUES ($1, $2, $3, $4)
       ON CONFLICT (line) DO UPDATE SET agent_id = EXCLUDED.agent_id, webhook_url = EXCLUDED.webhook_url, updated_at = now()
         WHERE inbound_numbers.tenant_id = EXCLUDED.tenant_id
       RETURNING line AS number, agent_id, webhook_url, created_at, updated_at, (xmax = 0) AS inserted`, [number, tenantId, s.agent_id, s.webhook_url]);
    const row = r.rows[0];
    if (!row) return 'taken';
    const { inserted, ...n } = row;
    return { number: toNumber(n), created: inserted };
  }

  async removeNumber(tenantId: string, number: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM inbound_numbers WHERE tenant_id = $1 AND line = $2', [tenantId, number])).rowCount > 0;
  }

  async putDefaults(tenantId: string, s: InboundSetting): Promise<InboundSetting> {
    const r = await this.db.query<InboundSetting>(
      `INSERT INTO inbound_defaults (tenant_id, agent_id, webhook_url) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id) DO UPDATE SET agent_id = EXCLUDED.agent_id, webhook_url = EXCLUDED.webhook_url, updated_at = now()
       RETURNING agent_id, webhook_url`, [tenantId, s.agent_id, s.webhook_url]);
    return r.rows[0];
  }
}

/** What an inbound call knows of its caller before anyone speaks. */
export interface CallerKnown {
  /** keys the dialog reads: customer_name, and last_<field> for each field of their last call */
  context: Record<string, string>;
  leadId: string | null;
  /** the lead's conversation, which this call continues */
  conversationId: string | null;
  timezone: string | null;
}

/** The caller's lead (the newest with that number) and the fields their last call extracted. */
export async function callerKnown(q: Queryable, tenantId: string, from: string): Promise<CallerKnown> {
  const context: Record<string, string> = {};
  const lead = await new LeadRepo(q).byNumber(tenantId, from);
  if (lead) context.customer_name = lead.name;
  const last = await lastCallTo(q, tenantId, from);
  if (last) {
    context.last_call_at = last.created_at;
    for (const [k, v] of Object.entries(last.extracted_data ?? {})) {
      if (k === 'customer_name') context.customer_name ??= String(v);
      else context[`last_${k}`] = String(v).slice(0, 500);
    }
  }
  return { context, leadId: lead?.id ?? null, conversationId: lead?.conversation_id ?? null, timezone: lead?.timezone ?? null };
}
