/**
 * Versioned migrations: every `NNN_name.sql` in ./migrations runs once, in file-name order, inside a
 * transaction. An advisory lock keeps several instances starting together from racing on PostgreSQL.
 * Ranges keep areas apart: 001-009 foundation, 010-019 calls, 020-029 streaming, 030-049 business.
 */
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';

const dir = fileURLToPath(new URL('./migrations/', import.meta.url));
const LOCK_KEY = 872_001; // arbitrary constant shared by every instance of this service

export async function migrate(db: Db): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{3}_.+\.sql$/.test(f)).sort();
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await tx.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = await readFile(dir + file, 'utf8');
      for (const stmt of splitStatements(sql)) await tx.query(stmt);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [file]);
      applied.push(file);
    }
  });
  return applied;
}

/** Splits a script on semicolons at line ends; our migrations keep dollar-quoted bodies out. */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\r?\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0);
}
