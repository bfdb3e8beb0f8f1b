/**
 * What a live call produces must outlive a PostgreSQL outage: its live items and conversation messages. A write
 * run through keep() that fails because the database is unreachable (db.ts isUnavailable) is kept in memory and
 * run again once a probe (SELECT 1, every PROBE_MS) finds the database back; its promise settles then. Writes
 * of one key (a call, a conversation) run one after another, so what is kept is written in the order it was
 * produced, and a later write of that key waits behind a kept one.
 *
 * Bounded: while the database is down, at most `maxWrites` writes are held (in flight or waiting); past that a
 * new write is refused at once (DatabaseUnavailableError) and counted as dropped. close() (shutdown) gives up
 * the waiting writes: they are lost with the process's memory, and the log says how many.
 * The embedded PGlite never reports an outage, so there this is a pass-through.
 */
import { DatabaseUnavailableError, isUnavailable, type Queryable } from './db.js';
import type { Logger } from '../log.js';

/** How often an unreachable database is tried again, ms. */
export const PROBE_MS = 1000;

export class OutageBuffer {
  #maxWrites: number;
  #log?: Logger;
  /** keep() calls not settled yet */
  #inside = 0;
  #down = false;
  #closed = false;
  #dropped = 0;
  #recovered?: { promise: Promise<void>; resolve(): void; reject(err: Error): void };
  #probe?: NodeJS.Timeout;
  readonly #tails = new Map<string, Promise<unknown>>();

  constructor(private readonly db: Queryable, o: { maxWrites?: number; log?: Logger } = {}) {
    this.#maxWrites = o.maxWrites ?? 10_000;
    this.#log = o.log;
  }

  configure(o: { maxWrites?: number; log?: Logger }): this {
    if (o.maxWrites !== undefined) this.#maxWrites = o.maxWrites;
    if (o.log) this.#log = o.log;
    return this;
  }

  /** The database was found unreachable and has not been seen back yet. */
  get down(): boolean { return this.#down; }
  /** writes held now (in flight or waiting for the database) */
  get held(): number { return this.#inside; }
  get dropped(): number { return this.#dropped; }

  /** Runs `write` after the earlier writes of `key`; while the database is unreachable, keeps it and runs it again. */
  keep<T>(key: string, write: () => Promise<T>): Promise<T> {
    if (this.#down && this.#inside >= this.#maxWrites) {
      this.#dropped++;
      if (this.#dropped === 1 || this.#dropped % 1000 === 0) {
        this.#log?.error({ held: this.#inside, dropped: this.#dropped }, 'database outage: buffer full, writes dropped');
      }
      return Promise.reject(new DatabaseUnavailableError(new Error(`outage buffer full (${this.#maxWrites} writes)`)));
    }
    this.#inside++;
    const prev = this.#tails.get(key) ?? Promise.resolve();
    const run = prev.then(() => this.#untilWritten(write)).finally(() => { this.#inside--; });
    const tail = run.catch(() => {});
    this.#tails.set(key, tail);
    void tail.then(() => { if (this.#tails.get(key) === tail) this.#tails.delete(key); });
    return run;
  }

  async #untilWritten<T>(write: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await write();
      } catch (err) {
        if (!isUnavailable(err) || this.#closed) throw err;
        await this.#backOnline();
      }
    }
  }

  /** Resolves when a probe reaches the database again (one probe loop for every waiting write). */
  #backOnline(): Promise<void> {
    if (!this.#recovered) {
      let resolve!: () => void, reject!: (err: Error) => void;
      const promise = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
      this.#recovered = { promise, resolve, reject };
      this.#down = true;
      this.#log?.warn({ held: this.#inside }, 'database unreachable: keeping live items and messages until it returns');
      this.#schedule();
    }
    return this.#recovered.promise;
  }

  #schedule(): void {
    this.#probe = setTimeout(() => {
      this.db.query('SELECT 1').then(() => {
        const r = this.#recovered;
        this.#recovered = undefined;
        this.#down = false;
        this.#log?.info({ held: this.#inside, dropped: this.#dropped }, 'database reachable again: writing what was kept');
        r?.resolve();
      }, (err) => {
        if (isUnavailable(err) && !this.#closed) { this.#schedule(); return; }
        this.#fail(err as Error);
      });
    }, PROBE_MS); // not unref'd: writes are waiting on it (close() stops it)
  }

  #fail(err: Error): void {
    const r = this.#recovered;
    this.#recovered = undefined;
    r?.reject(err);
  }

  /** Shutdown: waiting writes are given up (rejected); later outage failures are thrown at once. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#probe);
    if (this.#recovered) {
      this.#log?.error({ lost: this.#inside }, 'shutting down during a database outage: kept writes are lost');
      this.#fail(new DatabaseUnavailableError(new Error('shut down during a database outage')));
    }
  }
}

const buffers = new WeakMap<Queryable, OutageBuffer>();

/** The outage buffer of a database (one per Db, shared by everything that writes for live calls). */
export function outageBufferOf(db: Queryable): OutageBuffer {
  let b = buffers.get(db);
  if (!b) buffers.set(db, (b = new OutageBuffer(db)));
  return b;
}
