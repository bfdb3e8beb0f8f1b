/**
 * Resolves a subject (tenant + hash) to the ids of its calls, leads and conversations, before any row is
 * touched: erasure then deletes by id lists, so the order of deletes cannot hide rows from later steps.
 */
import type { Queryable } from '../db/db.js';
import { sqlHash } from './subject.js';
import { queryNamed } from './sql.js';

export interface SubjectScope { tenant: string; hash: string; calls: string[]; leads: string[]; convs: string[] }

const ids = async (db: Queryable, sql: string, v: Record<string, unknown>) =>
  (await queryNamed<{ id: string }>(db, sql, v)).rows.map((r) => r.id);

export async function resolveScope(db: Queryable, tables: Set<string>, tenant: string, hash: string): Promise<SubjectScope> {
  const hasLeads = tables.has('leads');
  const leads = hasLeads
    ? await ids(db, `SELECT id FROM leads WHERE tenant_id = :tenant AND ${sqlHash('e164')} = :hash`, { tenant, hash })
    : [];
  const leadCalls = hasLeads ? 'OR id IN (SELECT call_id FROM leads WHERE tenant_id = :tenant AND id = ANY(:leads))' : '';
  const calls = await ids(db,
    `SELECT id FROM calls WHERE tenant_id = :tenant AND (${sqlHash('to_number')} = :hash OR lead_id = ANY(:leads) ${leadCalls})`,
    { tenant, hash, leads });
  const leadConvs = hasLeads ? 'OR id IN (SELECT conversation_id FROM leads WHERE tenant_id = :tenant AND id = ANY(:leads))' : '';
  const convs = await ids(db,
    `SELECT id FROM conversations WHERE tenant_id = :tenant AND (call_id = ANY(:calls) OR lead_id = ANY(:leads)
       OR id IN (SELECT conversation_id FROM calls WHERE tenant_id = :tenant AND id = ANY(:calls)) ${leadConvs})`,
    { tenant, calls, leads });
  return { tenant, hash, calls, leads, convs };
}
