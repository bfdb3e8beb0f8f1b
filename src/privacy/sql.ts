/** Named parameters (:tenant, :hash, :calls…) compiled to positional $n, so a descriptor only binds what it uses. */
import type { Queryable } from '../db/db.js';

export type Named = Record<string, unknown>;

export function compileNamed(sql: string, values: Named): { text: string; params: unknown[] } {
  const order: string[] = [];
  const text = sql.replace(/(?<!:):([a-z_]+)\b/g, (_m, name: string) => {
    if (!(name in values)) throw new Error(`unbound parameter :${name}`);
    let i = order.indexOf(name);
    if (i < 0) { order.push(name); i = order.length - 1; }
    const v = values[name];
    return Array.isArray(v) ? `$${i + 1}::text[]` : `$${i + 1}`;
  });
  return { text, params: order.map((n) => values[n]) };
}

export async function queryNamed<T = Record<string, unknown>>(db: Queryable, sql: string, values: Named) {
  const { text, params } = compileNamed(sql, values);
  return db.query<T>(text, params);
}

/** Which of these tables exist in the current schema (others' migrations may not have landed yet). */
export async function existingTables(db: Queryable): Promise<Set<string>> {
  const r = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`);
  return new Set(r.rows.map((x) => x.table_name));
}

export async function columnsOf(db: Queryable, table: string): Promise<Set<string>> {
  const r = await db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`, [table]);
  return new Set(r.rows.map((x) => x.column_name));
}
