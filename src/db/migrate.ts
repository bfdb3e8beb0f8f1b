/**
 * Schema at start-up, in one transaction under an advisory lock (several instances may start together):
 * 1. every `migrations/NNN_name.sql` not applied yet runs once, in file-name order: tables and data only;
 * 2. every `functions/<name>.sql` whose text changed since it was last applied runs again: each holds the
 *    current text of one stored function (CREATE OR REPLACE, after dropping signatures it replaced), so a
 *    function is edited in place instead of being copied into a new migration.
 * Files run whole as multi-statement scripts, so dollar-quoted bodies need no care about where semicolons sit.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fromRoot } from '../package_root.js';
import type { Db } from './db.js';

// read from the source tree (not copied into dist/server): one copy, the one reviewers edit
const migrationsDir = fromRoot('src', 'db', 'migrations') + '/';
const functionsDir = fromRoot('src', 'db', 'functions') + '/';
const LOCK_KEY = 872_001; // arbitrary constant shared by every instance of this service

export interface MigrateResult { migrations: string[]; functions: string[] }

export async function migrate(db: Db): Promise<MigrateResult> {
  const migrations = (await readdir(migrationsDir)).filter((f) => /^\d{3}_.+\.sql$/.test(f)).sort();
  const functions = (await readdir(functionsDir)).filter((f) => f.endsWith('.sql')).sort();
  const applied: MigrateResult = { migrations: [], functions: [] };
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
      CREATE TABLE IF NOT EXISTS schema_functions (name text PRIMARY KEY, sha256 text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await tx.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    for (const file of migrations) {
      if (done.has(file)) continue;
      await tx.exec(await readFile(migrationsDir + file, 'utf8'));
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [file]);
      applied.migrations.push(file);
    }
    const current = new Map((await tx.query<{ name: string; sha256: string }>('SELECT name, sha256 FROM schema_functions')).rows.map((r) => [r.name, r.sha256]));
    // A function may call one defined in a later file: bodies are checked when called, not when created.
    await tx.query('SET LOCAL check_function_bodies = off');
    for (const file of functions) {
      const sql = await readFile(functionsDir + file, 'utf8');
      const sha = createHash('sha256').update(sql).digest('hex');
      if (current.get(file) === sha) continue;
      await tx.exec(sql);
      await tx.query(`INSERT INTO schema_functions (name, sha256) VALUES ($1, $2)
        ON CONFLICT (name) DO UPDATE SET sha256 = EXCLUDED.sha256, applied_at = now()`, [file, sha]);
      applied.functions.push(file);
    }
  });
  return applied;
}
