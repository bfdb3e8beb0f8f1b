/**
 * The webhook outbox: rows written with the call's final outcome, claimed by any instance with
 * FOR UPDATE SKIP LOCKED and a lease, and the per-attempt delivery log. Works on PostgreSQL and PGlite.
 */
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../ids.js';

export interface OutboxRow {
  id: string; tenant_id: string; call_id: string; url: string; event_type: string; payload: unknown; attempts: number;
}

export interface DeliveryLogEntry {
  webhook_id: string; attempt: number; status_code: number | null; error: string | null; duration_ms: number | null; at: string;
}

export class WebhookOutbox {
  constructor(private readonly db: Db) {}

  async enqueue(q: Queryable, w: { tenantId: string; callId: string; url: string; eventType: string; payload: unknown }): Promise<string> {
    const id = newId('msg');
    await q.query(
      'INSERT INTO webhook_outbox (id, tenant_id, call_id, url, event_type, payload) VALUES ($1, $2, $3, $4, $5, $6::jsonb)',
      [id, w.tenantId, w.callId, w.url, w.eventType, JSON.stringify(w.payload)]);
    return id;
  }

  /** Claims up to `limit` due rows for `leaseMs` (a crashed claimer's rows come back when the lease ends). */
  async claim(limit: number, leaseMs: number): Promise<OutboxRow[]> {
    return this.db.transaction(async (tx) => {
      const r = await tx.query<OutboxRow>(
        `SELECT id, tenant_id, call_id, url, event_type, payload, attempts FROM webhook_outbox
         WHERE state = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
         ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED`, [limit]);
      if (r.rows.length) {
        await tx.query(`UPDATE webhook_outbox SET locked_until = now() + ($2::int * interval '1 millisecond') WHERE id = ANY($1::text[])`,
          [r.rows.map((x) => x.id), leaseMs]);
      }
      return r.rows;
    });
  }

  async recordAttempt(row: OutboxRow, a: { statusCode: number | null; error: string | null; durationMs: number }, next:
    { state: 'delivered' } | { state: 'pending'; delayMs: number } | { state: 'failed' }): Promise<void> {
    const attempt = row.attempts + 1;
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO webhook_attempts (webhook_id, tenant_id, call_id, attempt, status_code, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [row.id, row.tenant_id, row.call_id, attempt, a.statusCode, a.error, a.durationMs]);
      await tx.query(
        `UPDATE webhook_outbox SET attempts = $2, state = $3, locked_until = NULL, last_error = $4,
           next_attempt_at = CASE WHEN $3 = 'pending' THEN now() + ($5::int * interval '1 millisecond') ELSE next_attempt_at END,
           delivered_at = CASE WHEN $3 = 'delivered' THEN now() ELSE delivered_at END
         WHERE id = $1`,
        [row.id, attempt, next.state, a.error, next.state === 'pending' ? Math.round(next.delayMs) : 0]);
    });
  }

  /** The delivery log of a call (tenant-scoped): each webhook with its attempts, read in one statement so a
   *  webhook's state and its attempts come from the same snapshot. */
  async log(tenantId: string, callId: string) {
    const hooks = await this.db.query<{ id: string; url: string; event_type: string; state: string; attempts: number; next_attempt_at: Date | string; delivered_at: Date | string | null; created_at: Date | string; log: Array<Omit<DeliveryLogEntry, 'webhook_id'>> }>(
      `SELECT o.id, o.url, o.event_type, o.state, o.attempts, o.next_attempt_at, o.delivered_at, o.created_at,
              COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'status_code', a.status_code, 'error', a.error,
                                                          'duration_ms', a.duration_ms, 'at', a.at) ORDER BY a.id)
                        FROM webhook_attempts a WHERE a.call_id = o.call_id AND a.webhook_id = o.id), '[]'::json) AS log
       FROM webhook_outbox o WHERE o.tenant_id = $1 AND o.call_id = $2 ORDER BY o.created_at`, [tenantId, callId]);
    const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
    return hooks.rows.map((h) => ({
      webhook_id: h.id, event: h.event_type, url: h.url, state: h.state, attempts: h.attempts, created_at: iso(h.created_at),
      next_attempt_at: h.state === 'pending' ? iso(h.next_attempt_at) : null, delivered_at: iso(h.delivered_at),
      log: h.log.map((a) => ({ attempt: a.attempt, status_code: a.status_code, error: a.error, duration_ms: a.duration_ms, at: iso(a.at) })),
    }));
  }
}
