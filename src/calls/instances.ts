/**
 * Liveness of call engines (table engine_instances). Each engine renews its row every quarter
 * lease; on the same tick it looks for instances whose row is older than the lease, ends their live calls as
 * failed (ended_reason instance_lost) through the runner's usual end (status, transition, status item, webhook,
 * campaign listeners), then forgets the instance. A call ends once whichever engines sweep at the same time: its
 * move is conditional on the status it was read in. An instance that was only stalled past its lease finds its
 * calls ended and its own moves refused; the lease (CALL_INSTANCE_LEASE_SECONDS) is long to keep that rare.
 */
import type { Db } from '../db/db.js';
import type { Logger } from '../log.js';
import { liveCallsOnInstance, type CallRow } from './repo.js';
import { TERMINAL_STATUSES } from './types.js';

/** The most calls of one dead instance ended per sweep (the rest on the next tick). */
const SWEEP_BATCH = 500;

export interface LostCallEnder {
  endLost(row: CallRow): Promise<void>;
  /** the calls this instance drives, and how it stops one ended elsewhere (fencing, see fenceEnded) */
  liveIds?(): string[];
  fence?(callId: string): boolean;
}

export class EngineInstances {
  #timer?: NodeJS.Timeout;
  #tick?: Promise<unknown>;

  constructor(private readonly o: { db: Db; log: Logger; instanceId: string; leaseSeconds: number; runner: LostCallEnder }) {}

  /** Registers this instance and renews it every quarter lease, sweeping dead ones on the same tick. */
  async start(): Promise<void> {
    this.#timer = setInterval(() => {
      if (this.#tick) return;
      this.#tick = this.renew().then(() => this.fenceEnded()).then(() => this.sweep())
        .catch((err) => this.o.log.warn({ err }, 'engine liveness tick failed'))
        .finally(() => { this.#tick = undefined; });
    }, Math.max(250, (this.o.leaseSeconds * 1000) / 4));
    this.#timer.unref();
    await this.renew(); // a failure here is retried by the next tick
  }

  async renew(): Promise<void> {
    await this.o.db.query(`INSERT INTO engine_instances (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET seen_at = now()`, [this.o.instanceId]);
  }

  /**
   * Stops the calls this instance still drives whose end another instance stored (it found this one gone, or
   * silent to a command): the stored end stands, the call stops here. The bus tells the owner at once when it
   * can; this check covers a message lost meanwhile. Returns how many were stopped.
   */
  async fenceEnded(): Promise<number> {
    const ids = this.o.runner.liveIds?.() ?? [];
    if (!ids.length || !this.o.runner.fence) return 0;
    // an erased call has no row any more: it is over too
    const r = await this.o.db.query<{ id: string }>(
      `SELECT x.id FROM unnest($1::text[]) AS x(id) LEFT JOIN calls c ON c.id = x.id WHERE c.id IS NULL OR c.status = ANY($2::text[])`,
      [ids, TERMINAL_STATUSES]);
    let n = 0;
    for (const { id } of r.rows) if (this.o.runner.fence(id)) { n += 1; this.o.log.warn({ call_id: id }, 'a call ended by another instance was stopped here'); }
    return n;
  }

  /** Ends the live calls of instances not seen for the lease; returns how many calls were ended. */
  async sweep(): Promise<number> {
    const stale = await this.o.db.query<{ id: string }>(
      `SELECT id FROM engine_instances WHERE id <> $1 AND seen_at < now() - make_interval(secs => $2)`, [this.o.instanceId, this.o.leaseSeconds]);
    let ended = 0;
    for (const { id } of stale.rows) {
      const live = { rows: await liveCallsOnInstance(this.o.db, id, SWEEP_BATCH) };
      for (const row of live.rows) {
        await this.o.runner.endLost(row).catch((err) => this.o.log.error({ err, call_id: row.id }, 'could not end a call of a lost instance'));
        ended += 1;
      }
      if (live.rows.length < SWEEP_BATCH) {
        await this.o.db.query(`DELETE FROM engine_instances WHERE id = $1 AND seen_at < now() - make_interval(secs => $2)`, [id, this.o.leaseSeconds]);
        if (live.rows.length) this.o.log.warn({ instance_id: id, calls: live.rows.length }, 'ended the live calls of a lost instance');
      }
    }
    return ended;
  }

  /** Stops renewing and removes this instance's row (its calls were ended by the runner's close). */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#tick;
    await this.o.db.query('DELETE FROM engine_instances WHERE id = $1', [this.o.instanceId]).catch(() => {});
  }
}
