/**
 * Transcript retention: transcript items of calls (call_events of type transcript) and conversation messages
 * older than the tenant's retention period (tenant_privacy_settings, else the configured default) are deleted.
 * Call rows, KPIs and metrics stay: only the words people said expire.
 */
import type { Queryable } from '../db/db.js';

export interface ExpireResult { cutoff_default: string; deleted: { call_events: number; conversation_messages: number }; perTenant: Record<string, { call_events: number; conversation_messages: number }> }

export async function expireTranscripts(db: Queryable, o: { now: Date; tenant?: string; defaultDays: number }): Promise<ExpireResult> {
  // retention per tenant: the row's age is compared with now - days (days as an interval, so DST-free UTC maths)
  const cutoff = `$1::timestamptz - make_interval(days => COALESCE((SELECT s.transcript_retention_days FROM tenant_privacy_settings s WHERE s.tenant_id = x.tenant_id), $2::int))`;
  const onlyTenant = o.tenant ? 'AND x.tenant_id = $3' : '';
  const params = o.tenant ? [o.now.toISOString(), o.defaultDays, o.tenant] : [o.now.toISOString(), o.defaultDays];
  const ev = await db.query<{ tenant_id: string }>(
    `DELETE FROM call_events x WHERE x.type = 'transcript' AND x.at < ${cutoff} ${onlyTenant} RETURNING x.tenant_id`, params);
  const msg = await db.query<{ tenant_id: string }>(
    `DELETE FROM conversation_messages x WHERE x.tenant_id IS NOT NULL AND x.at < ${cutoff} ${onlyTenant} RETURNING x.tenant_id`, params);
  const perTenant: ExpireResult['perTenant'] = {};
  const bump = (t: string, k: 'call_events' | 'conversation_messages') => { (perTenant[t] ??= { call_events: 0, conversation_messages: 0 })[k]++; };
  for (const r of ev.rows) bump(r.tenant_id, 'call_events');
  for (const r of msg.rows) bump(r.tenant_id, 'conversation_messages');
  return {
    cutoff_default: new Date(o.now.getTime() - o.defaultDays * 86_400_000).toISOString(),
    deleted: { call_events: ev.rows.length, conversation_messages: msg.rows.length },
    perTenant,
  };
}
