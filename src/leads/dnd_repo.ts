/** The per-tenant do-not-disturb registry (table dnd_numbers). Numbers are stored in E.164. */
import type { Queryable } from '../db/db.js';

export interface DndEntry { e164: string; source: string; created_at: string }

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));

/** Adds one number (idempotent); the shape inbound CRM opt-outs use (DndWriter). */
export async function addToDnd(db: Queryable, tenantId: string, e164: string, source: string): Promise<void> {
  await db.query('INSERT INTO dnd_numbers (tenant_id, e164, source) VALUES ($1, $2, $3) ON CONFLICT (tenant_id, e164) DO NOTHING', [tenantId, e164, source]);
}

export class DndRepo {
  constructor(private db: Queryable) {}

  /** Bulk insert; returns how many numbers were new. One statement, so an import is all-or-nothing. */
  async importMany(tenantId: string, numbers: string[], source: string): Promise<number> {
    if (numbers.length === 0) return 0;
    const r = await this.db.query(
      `INSERT INTO dnd_numbers (tenant_id, e164, source) SELECT $1, n, $3 FROM unnest($2::text[]) AS n
       ON CONFLICT (tenant_id, e164) DO NOTHING`, [tenantId, numbers, source]);
    return r.rowCount;
  }

  async get(tenantId: string, e164: string): Promise<DndEntry | undefined> {
    const r = await this.db.query<DndEntry>('SELECT e164, source, created_at FROM dnd_numbers WHERE tenant_id = $1 AND e164 = $2', [tenantId, e164]);
    return r.rows[0] && { ...r.rows[0], created_at: iso(r.rows[0].created_at) };
  }

  /** By number (the primary key's order, so a page is an index range); `after` is the last number of the previous page. */
  async list(tenantId: string, limit: number, after?: string): Promise<DndEntry[]> {
    const r = await this.db.query<DndEntry>(
      `SELECT e164, source, created_at FROM dnd_numbers WHERE tenant_id = $1 AND ($2::text IS NULL OR e164 > $2)
       ORDER BY e164 LIMIT $3`, [tenantId, after ?? null, limit]);
    return r.rows.map((row) => ({ ...row, created_at: iso(row.created_at) }));
  }

  async remove(tenantId: string, e164: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM dnd_numbers WHERE tenant_id = $1 AND e164 = $2', [tenantId, e164])).rowCount > 0;
  }
}
