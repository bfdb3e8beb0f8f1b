/**
 * The campaign dialer: a durable, table-driven loop. Every instance may run one; they coordinate only through
 * the database:
 *  - claims happen under the campaign row lock (FOR UPDATE SKIP LOCKED: a busy campaign is skipped, not waited
 *    on), and the room left is max_concurrency minus the contacts in state dialing, counted in that same
 *    transaction, so several instances together never exceed it nor claim one contact twice;
 *  - outcomes arrive from deps.calls.onCallEnded (fast path) and, for calls that ended on another instance
 *    or while no instance ran, by reconciling dialing contacts against the calls table;
 *  - a contact claimed by an instance that died before linking its call is linked to the call it made (same
 *    campaign and number, created after the claim) or released for another attempt after the lease.
 * Times: claimed_at uses the database clock (leases); calling windows, gates and retry times use the injected clock.
 */
import type { Db, Queryable } from '../db/db.js';
import type { Logger } from '../log.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import type { CallGate, CampaignCallPort, EndedCall } from './ports.js';
import { isTerminal } from '../calls/types.js';
import { reconcileEnded, reconcileOrphans } from './reconcile.js';
import { inWindow } from './window.js';
import { outcomeOf } from './outcome.js';
import type { RetryPolicy } from './schema.js';

export interface DialerOptions {
  db: Db; log: Logger; calls: CampaignCallPort; gate: CallGate;
  clock?: () => Date; tickMs: number; leaseSeconds: number; instanceId?: string;
}

interface CampaignRow { id: string; tenant_id: string; agent_id: string; state: string; window_start: string; window_end: string; timezone: string; max_concurrency: number; retry: RetryPolicy; tools: string[] | null; webhook_url: string | null }
interface Claimed { id: string; phone: string; context: Record<string, string>; attempts: number; position: number }

/** errors that mean "not now" rather than "never": the attempt is given back and retried shortly */
const TRANSIENT = new Set(['concurrency_limited', 'rate_limited', 'unavailable']);
const TRANSIENT_RETRY_MS = 30_000;

export class CampaignDialer {
  readonly instanceId: string;
  #timer?: NodeJS.Timeout;
  #running?: Promise<void>;
  #again = false;
  #wantFull = false;
  /** per campaign: the highest list position this instance has claimed (see #claimPending) */
  #cursor = new Map<string, number>();
  #stopped = false;
  /** calls that ended before their contact was linked (the dispatch reply was still in flight) */
  #endedEarly = new Map<string, string>();
  constructor(private o: DialerOptions) {
    this.instanceId = o.instanceId ?? newId('dialer');
    this.clock = o.clock ?? (() => new Date());
    o.calls.onCallEnded?.((call) => this.#onEnded(call));
  }
  /** the clock of calling windows, gates and retry times (tests fix it, like LeadService.clock) */
  clock: () => Date;
  #now = () => this.clock();

  start(): void {
    if (this.o.tickMs <= 0 || this.#timer || this.#stopped) return;
    this.#timer = setInterval(() => { void this.kick(); }, this.o.tickMs);
    this.#timer.unref();
    this.kick();
  }

  /**
   * Runs a pass now, or right after the running one (never two at once in one instance). A full pass also
   * reconciles and closes finished campaigns; an ended call only asks for a fill (cheap, so a burst of
   * endings costs one claim per pass, not one full scan per call).
   */
  kick(full = true): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#wantFull ||= full;
    if (this.#running) { this.#again = true; return this.#running; }
    this.#running = (async () => {
      do {
        this.#again = false;
        const f = this.#wantFull;
        this.#wantFull = false;
        await (f ? this.tick() : this.#fillAll()).catch((err) => this.o.log.warn({ err }, 'campaign dialer pass failed'));
      } while (this.#again && !this.#stopped);
    })().finally(() => { this.#running = undefined; });
    return this.#running;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#running;
  }

  /** One pass: learn outcomes, release dead claims, fill every running campaign, close finished ones. */
  async tick(): Promise<void> {
    await this.reconcile();
    await this.#fillAll();
    await this.o.db.query(`UPDATE campaigns cp SET state = 'completed', finished_at = now(), updated_at = now()
      WHERE cp.state = 'running' AND NOT EXISTS (SELECT 1 FROM campaign_contacts cc WHERE cc.campaign_id = cp.id AND cc.state IN ('pending','dialing','retry'))`);
  }

  async #fillAll(): Promise<void> {
    const running = await this.o.db.query<{ id: string }>(`SELECT id FROM campaigns WHERE state = 'running' ORDER BY created_at`);
    for (const c of running.rows) { if (this.#stopped) return; await this.#fill(c.id); }
  }

  async #fill(campaignId: string): Promise<void> {
    const now = this.#now();
    const claim = await this.o.db.transaction(async (tx) => {
      const c = (await tx.query<CampaignRow>(`SELECT id, tenant_id, agent_id, state, window_start, window_end, timezone, max_concurrency, retry, tools, webhook_url
        FROM campaigns WHERE id = $1 AND state = 'running' FOR UPDATE SKIP LOCKED`, [campaignId])).rows[0];
      if (!c || !inWindow(now, { start: c.window_start, end: c.window_end, timezone: c.timezone })) return undefined;
      const inFlight = (await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM campaign_contacts WHERE campaign_id = $1 AND state = 'dialing'`, [c.id])).rows[0].n;
      const room = c.max_concurrency - inFlight;
      if (room <= 0) return undefined;
      // due retries first (oldest due first), then pending contacts in list order; both read through partial indexes
      const retries = await this.#claim(tx, c.id, room, `state = 'retry' AND next_attempt_at <= $4::timestamptz ORDER BY next_attempt_at`, now.toISOString());
      const pending = room > retries.length ? await this.#claimPending(tx, c.id, room - retries.length) : [];
      return { c, contacts: [...retries, ...pending] };
    });
    if (!claim?.contacts.length) return;
    await Promise.all(claim.contacts.map((k) => this.#dial(claim.c, k, now)));
  }

  /**
   * Pending contacts in list order. The scan starts after the last position this instance claimed: claimed rows
   * leave dead index entries behind, and starting from position 0 each time would walk all of them (O(n) per
   * claim on a large campaign). Rows behind the cursor (skipped while another instance held them) are picked
   * up by the full scan that runs whenever the cursor scan comes back short.
   */
  async #claimPending(tx: Queryable, campaignId: string, limit: number): Promise<Claimed[]> {
    const cursor = this.#cursor.get(campaignId) ?? -1;
    let rows = await this.#claim(tx, campaignId, limit, `state = 'pending' AND position > $4 ORDER BY position`, cursor);
    if (rows.length < limit && cursor >= 0) rows = rows.concat(await this.#claim(tx, campaignId, limit - rows.length, `state = 'pending' ORDER BY position`));
    if (rows.length) this.#cursor.set(campaignId, Math.max(cursor, ...rows.map((r) => r.position)));
    if (this.#cursor.size > 1000) this.#cursor.delete(this.#cursor.keys().next().value!);
    return rows;
  }

  async #claim(tx: Queryable, campaignId: string, limit: number, which: string, extra?: unknown): Promise<Claimed[]> {
    const r = await tx.query<Claimed>(
      `UPDATE campaign_contacts SET state = 'dialing', attempts = attempts + 1, call_id = NULL, claimed_by = $3, claimed_at = now(), updated_at = now()
        WHERE id IN (SELECT id FROM campaign_contacts WHERE campaign_id = $1 AND ${which} LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id, phone, context, attempts, position`, extra === undefined ? [campaignId, limit, this.instanceId] : [campaignId, limit, this.instanceId, extra]);
    return r.rows;
  }

  async #dial(c: CampaignRow, k: Claimed, now: Date): Promise<void> {
    const gate = await this.o.gate(c.tenant_id, k.phone, now);
    if (gate.action === 'block') return this.#release(k.id, 'blocked', null, `dnd:${gate.reason}`);
    if (gate.action === 'schedule') return this.#release(k.id, 'retry', gate.at, `scheduled:${gate.reason}`);
    let call: { id: string; status: string };
    try {
      call = await this.o.calls.dispatch(c.tenant_id, {
        to: k.phone, agent_id: c.agent_id, context: k.context ?? {}, campaign_id: c.id,
        ...(c.tools ? { tools: c.tools } : {}), ...(c.webhook_url ? { webhook_url: c.webhook_url } : {}),
      }, { dndAt: now });
    } catch (err) {
      const code = err instanceof ApiError ? err.code : 'internal';
      if (code === 'dnd_blocked') return this.#release(k.id, 'blocked', null, 'dnd:dnd'); // listed since the gate ran
      if (TRANSIENT.has(code)) return this.#release(k.id, 'retry', new Date(now.getTime() + TRANSIENT_RETRY_MS), code);
      this.o.log.warn({ campaign_id: c.id, code }, 'campaign dispatch failed');
      await this.o.db.query(`UPDATE campaign_contacts SET state = 'failed', last_outcome = $2, updated_at = now() WHERE id = $1 AND state = 'dialing'`, [k.id, code]);
      return;
    }
    await this.o.db.query(`UPDATE campaign_contacts SET call_id = $2, updated_at = now() WHERE id = $1 AND state = 'dialing'`, [k.id, call.id]);
    const early = this.#endedEarly.get(call.id);
    this.#endedEarly.delete(call.id);
    const status = early ?? (isTerminal(call.status) ? call.status : undefined);
    if (status) await this.#applyOutcome(call.id, status);
  }

  /** Gives a claimed contact back without counting the attempt (gate said not now, or a transient refusal). */
  async #release(id: string, state: 'retry' | 'blocked', at: Date | null, outcome: string): Promise<void> {
    await this.o.db.query(`UPDATE campaign_contacts SET state = $2, next_attempt_at = $3::timestamptz, attempts = attempts - 1, last_outcome = $4, updated_at = now()
      WHERE id = $1 AND state = 'dialing'`, [id, state, at?.toISOString() ?? null, outcome]);
  }

  /**
   * Moves the dialing contact of this call by the call's final status; idempotent (only from dialing). The campaign
   * row is share-locked while the outcome is decided, so a cancel is either seen (the contact ends canceled) or
   * waits for it (and then cancels the retry it left); never a retry left behind in a canceled campaign.
   */
  async #applyOutcome(callId: string, status: string): Promise<number> {
    return this.o.db.transaction(async (tx) => {
      const r = await tx.query<{ id: string; attempts: number; retry: RetryPolicy; cstate: string }>(
        `SELECT cc.id, cc.attempts, cp.retry, cp.state AS cstate FROM campaign_contacts cc JOIN campaigns cp ON cp.id = cc.campaign_id
          WHERE cc.call_id = $1 AND cc.state = 'dialing' FOR SHARE OF cp`, [callId]);
      let moved = 0;
      for (const k of r.rows) {
        const o = outcomeOf(status, k.attempts, k.retry, k.cstate, this.#now());
        const u = await tx.query(`UPDATE campaign_contacts SET state = $2, next_attempt_at = $3::timestamptz, last_outcome = $4, updated_at = now()
          WHERE id = $1 AND state = 'dialing' AND call_id = $5`, [k.id, o.state, o.nextAttemptAt?.toISOString() ?? null, status, callId]);
        moved += u.rowCount;
      }
      return moved;
    });
  }

  #onEnded(call: EndedCall): void {
    if (!call.campaign_id || this.#stopped) return;
    this.#applyOutcome(call.id, call.status).then((n) => {
      if (n === 0) {
        this.#endedEarly.set(call.id, call.status);
        // bounded: entries are consumed by #dial; stale ones (other instances' calls) are dropped oldest first
        if (this.#endedEarly.size > 10_000) this.#endedEarly.delete(this.#endedEarly.keys().next().value!);
      }
      void this.kick(false);
    }).catch((err) => this.o.log.warn({ err }, 'campaign outcome failed'));
  }

  /** Outcomes from the calls table, and claims whose instance died before linking a call. */
  async reconcile(): Promise<void> {
    const apply = (callId: string, status: string) => this.#applyOutcome(callId, status);
    await reconcileEnded(this.o.db, apply);
    await reconcileOrphans(this.o.db, this.o.leaseSeconds, this.#now(), apply);
  }
}
