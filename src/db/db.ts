/**
 * One small database contract with two backends: PostgreSQL through `pg` (DATABASE_URL set) and an
 * embedded PGlite (PostgreSQL in WebAssembly) otherwise. Both run the same SQL; repositories only see `Db`.
 */
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createClusterOffThread, isNewCluster } from './pglite_init.js';

export interface QueryResult<T> { rows: T[]; rowCount: number }

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

/** A transaction's connection: parameterised queries, and multi-statement scripts without parameters. */
export interface Tx extends Queryable {
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn inside BEGIN/COMMIT on one connection; rolls back when fn throws. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Runs fn's reads against one snapshot (REPEATABLE READ, READ ONLY): a view built from several statements never
   *  mixes states from before and after a concurrent commit. */
  snapshot<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Executes a multi-statement script. */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * PostgreSQL cannot be reached (refused, reset, shut down, connect timeout): a retryable condition, answered 503
 * `unavailable` with Retry-After (src/api/problem.ts), and what live calls produce meanwhile is kept
 * (src/db/outage.ts). The driver's error is the cause.
 */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
  readonly code = 'DB_UNAVAILABLE';
  constructor(cause: unknown) {
    super(`database unavailable: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/** Socket errors of the connection, and the SQLSTATEs of a server that is going or not there yet. */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE',
  '57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection closed)/;

export function isUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e) return false;
  if (typeof e.code === 'string' && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  return typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message);
}

/**
 * What a database error may carry into a log: PGlite's errors hold the statement's parameters (names, phone
 * numbers) and PostgreSQL's `detail` quotes key values ("Key (e164)=(+91…) already exists"). They stay on the
 * error for code that reads them, but are no longer enumerable, so pino's error serializer leaves them out.
 */
const PRIVATE_FIELDS = ['params', 'queryOptions', 'detail', 'where', 'internalQuery'];

/** Classifies and scrubs a driver error (see above); returns what to throw. */
export function dbError(err: unknown): unknown {
  if (isUnavailable(err) && !(err instanceof DatabaseUnavailableError)) return new DatabaseUnavailableError(scrub(err));
  return scrub(err);
}

function scrub(err: unknown): unknown {
  if (err && typeof err === 'object') {
    for (const k of PRIVATE_FIELDS) {
      if (Object.prototype.propertyIsEnumerable.call(err, k)) Object.defineProperty(err, k, { enumerable: false });
    }
  }
  return err;
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

/** A connection attempt to PostgreSQL that takes longer fails (and the request answers 503), ms. */
const CONNECT_TIMEOUT_MS = 5000;

class PgDb implements Db {
  readonly kind = 'postgres' as const;
  #pool: pg.Pool;
  #closed = false;
  constructor(url: string, poolMax: number) {
    this.#pool = new pg.Pool({ connectionString: url, max: poolMax, idleTimeoutMillis: 60_000, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    // An idle client losing its server must not crash the process; the next query reconnects. A client checked
    // out (a transaction between two statements) that loses it emits 'error' on itself: without a listener that
    // stopped the process when PostgreSQL went away; its next query fails instead (unavailable).
    this.#pool.on('error', () => {});
    this.#pool.on('connect', (client) => { client.on('error', () => {}); });
  }
  async query<T>(sql: string, params: unknown[] = []): Promise<QueryResult<T>> {
    const q = pgQuery(sql, params);
    try {
      const r = typeof q === 'string' ? await this.#pool.query(q) : await this.#pool.query(q);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
    } catch (err) { throw dbError(err); }
  }
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> { return this.#inTransaction('BEGIN', fn); }
  snapshot<T>(fn: (q: Queryable) => Promise<T>): Promise<T> { return this.#inTransaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', fn); }
  async #inTransaction<T>(begin: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect().catch((err) => { throw dbError(err); });
    let broken = false;
    try {
      await client.query(begin);
      const tx: Tx = {
        query: async <R>(sql: string, params: unknown[] = []) => {
          const q = pgQuery(sql, params);
          try {
            const r = typeof q === 'string' ? await client.query(q) : await client.query(q);
            return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
          } catch (err) { throw dbError(err); }
        },
        // without parameters pg uses the simple query protocol, which runs several statements
        exec: async (sql: string) => { await client.query(sql).catch((err) => { throw dbError(err); }); },
      };
      const out = await fn(tx);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      const e = dbError(err);
      broken = isUnavailable(e);
      if (!broken) await client.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      // a connection that lost its server is not given back to the pool
      client.release(broken ? true : undefined);
    }
  }
  async exec(sql: string): Promise<void> { await this.#pool.query(sql).catch((err) => { throw dbError(err); }); }
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
    try {
      const r = await this.#db.query<T>(sql, params as unknown[]);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    } catch (err) { throw scrub(err); }
  }
  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.#db.transaction(async (t) =>
      fn({
        query: async <R>(sql: string, params: unknown[] = []) => {
          try {
            const r = await t.query<R>(sql, params as unknown[]);
            return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
          } catch (err) { throw scrub(err); }
        },
        exec: async (sql: string) => { await t.exec(sql).catch((err) => { throw scrub(err); }); },
      }),
    ).catch((err) => { throw scrub(err); });
  }
  // PGlite runs one statement at a time on one connection, and a transaction holds it: nothing commits in between
  snapshot<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    return this.transaction(async (tx) => { await tx.exec('SET TRANSACTION READ ONLY'); return fn(tx); });
  }
  async exec(sql: string): Promise<void> { await this.#db.exec(sql).catch((err) => { throw scrub(err); }); }
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#db.close();
  }
}

export interface DbOptions {
  databaseUrl?: string; dataDir: string; poolMax?: number;
  /** PGlite's buffer pool, MB (PGLITE_SHARED_BUFFERS_MB); PostgreSQL's own default, 128 MB, is most of an idle service's memory */
  pgliteSharedBuffersMb?: number;
}

/**
 * PostgreSQL pool size (DB_POOL_MAX, default 10). Statements here are short, so a few connections keep the
 * server busy; more only add backends competing for the same cores (and colder per-connection plan caches).
 */

/** PGlite keeps its cluster in DATA_DIR/pglite so the data directory can also hold recordings. */
export async function openDb(opts: DbOptions): Promise<Db> {
  if (opts.databaseUrl) return new PgDb(opts.databaseUrl, opts.poolMax ?? 10);
  let pglite: PGlite;
  const options = opts.pgliteSharedBuffersMb
    ? { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${opts.pgliteSharedBuffersMb}MB`] } : {};
  if (opts.dataDir === 'memory') pglite = new PGlite(options);
  else {
    const dir = join(opts.dataDir, 'pglite');
    await mkdir(dir, { recursive: true });
    if (isNewCluster(dir)) await createClusterOffThread(dir, options); // its initdb memory leaves with the thread
    pglite = new PGlite(dir, options);
  }
  await pglite.waitReady;
  return new PgliteDb(pglite);
}
