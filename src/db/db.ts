/**
 * One small database contract with two backends: PostgreSQL through `pg` (DATABASE_URL set) and an
 * embedded PGlite (PostgreSQL in WebAssembly) otherwise. Both run the same SQL; repositories only see `Db`.
 */
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface QueryResult<T> { rows: T[]; rowCount: number }

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn inside BEGIN/COMMIT on one connection; rolls back when fn throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Executes a multi-statement script (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

// Return int8 and numeric as JS numbers: our counters and sums stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/**
 * Named (prepared) statements for PostgreSQL: a parameterised statement is parsed once per pooled connection
 * and then only bound and executed, instead of parsed and analysed on every call. Names come from the SQL
 * text, so one name always means one text; texts beyond MAX_PREPARED run unnamed (dynamic SQL cannot grow
 * the server-side statement cache without bound).
 */
const MAX_PREPARED = 500;
const preparedNames = new Map<string, string>();
function pgQuery(sql: string, params: unknown[]): pg.QueryConfig | string {
  if (params.length === 0) return sql;
  let name = preparedNames.get(sql);
  if (name === undefined && preparedNames.size < MAX_PREPARED) preparedNames.set(sql, (name = `vc_${preparedNames.size.toString(36)}`));
  return name === undefined ? { text: sql, values: params } : { name, text: sql, values: params };
}

class PgDb implements Db {
  readonly kind = 'postgres' as const;
  #pool: pg.Pool;
  #closed = false;
  constructor(url: string, poolMax: number) {
    this.#pool = new pg.Pool({ connectionString: url, max: poolMax, idleTimeoutMillis: 60_000 });
    // An idle client losing its server must not crash the process; the next query reconnects.
    this.#pool.on('error', () => {});
  }
  async query<T>(sql: string, params: unknown[] = []): Promise<QueryResult<T>> {
    const q = pgQuery(sql, params);
    const r = typeof q === 'string' ? await this.#pool.query(q) : await this.#pool.query(q);
    return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
  }
  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      const tx: Queryable = {
        query: async <R>(sql: string, params: unknown[] = []) => {
          const q = pgQuery(sql, params);
          const r = typeof q === 'string' ? await client.query(q) : await client.query(q);
          return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
        },
      };
      const out = await fn(tx);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }
  async exec(sql: string): Promise<void> { await this.#pool.query(sql); }
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}

class PgliteDb implements Db {
  readonly kind = 'pglite' as const;
  #db: PGlite;
  #closed = false;
  constructor(db: PGlite) { this.#db = db; }
  async query<T>(sql: string, params: unknown[] = []): Promise<QueryResult<T>> {
    const r = await this.#db.query<T>(sql, params as unknown[]);
    return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
  }
  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#db.transaction(async (t) =>
      fn({
        query: async <R>(sql: string, params: unknown[] = []) => {
          const r = await t.query<R>(sql, params as unknown[]);
          return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
        },
      }),
    );
  }
  async exec(sql: string): Promise<void> { await this.#db.exec(sql); }
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#db.close();
  }
}

export interface DbOptions { databaseUrl?: string; dataDir: string; poolMax?: number }

/**
 * PostgreSQL pool size (DB_POOL_MAX, default 10). Statements here are short, so a few connections keep the
 * server busy; more only add backends competing for the same cores (and colder per-connection plan caches).
 */

/** PGlite keeps its cluster in DATA_DIR/pglite so the data directory can also hold recordings. */
export async function openDb(opts: DbOptions): Promise<Db> {
  if (opts.databaseUrl) return new PgDb(opts.databaseUrl, opts.poolMax ?? 10);
  let pglite: PGlite;
  if (opts.dataDir === 'memory') pglite = new PGlite();
  else {
    const dir = join(opts.dataDir, 'pglite');
    await mkdir(dir, { recursive: true });
    pglite = new PGlite(dir);
  }
  await pglite.waitReady;
  return new PgliteDb(pglite);
}
