/**
 * Inbound CRM and calendar events: envelope, effects, idempotency. One transaction per event: the event id
 * is recorded (INSERT … ON CONFLICT DO NOTHING) and its effect applied together, so a redelivery either finds
 * the id (duplicate, no effect) or, if the first delivery failed, applies the effect exactly once.
 */
import { z } from 'zod';
import type { Db, Queryable } from '../db/db.js';
import { ApiError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { E164, subjectHash } from '../privacy/subject.js';

export type Source = 'crm' | 'calendar';

export const Envelope = z.object({
  id: z.string().min(1).max(200),
  type: z.string().min(1).max(100),
  tenant_id: z.string().min(1).max(100),
  data: z.record(z.string(), z.unknown()).default({}),
});
export type Envelope = z.infer<typeof Envelope>;

/** The body as sent: tenant_id may be left out when a tenant's inbound secret signed it (the secret names it). */
export const InboundBody = Envelope.extend({ tenant_id: Envelope.shape.tenant_id.optional() });

/** Adds a number to the tenant's do-not-disturb registry (src/leads/dnd_repo.ts) inside the caller's transaction. */
export type DndWriter = (tx: Queryable, tenantId: string, e164: string, source: string) => Promise<void>;

const phoneOf = (d: Record<string, unknown>): string | undefined => {
  const p = d.phone ?? d.e164;
  if (p === undefined) return undefined;
  if (typeof p !== 'string' || !E164.test(p)) throw new ApiError('validation_failed', 'data.phone must be an E.164 number', { fields: [{ path: 'body.data.phone', message: 'must be E.164' }] });
  return p;
};
const str = (v: unknown) => (typeof v === 'string' && v.length <= 200 ? v : null);

async function crmEffect(tx: Queryable, e: Envelope, phone: string | undefined, addToDnd?: DndWriter): Promise<string> {
  const optOut = e.type === 'contact.opted_out' || (e.type === 'lead.updated' && (e.data.opted_out === true || e.data.dnd === true));
  if (!optOut) return 'recorded';
  if (!phone) throw new ApiError('validation_failed', 'an opt-out needs data.phone', { fields: [{ path: 'body.data.phone', message: 'required' }] });
  if (!addToDnd) throw new ApiError('unavailable', 'the do-not-disturb registry is not available', { retryable: true });
  await addToDnd(tx, e.tenant_id, phone, `crm:${e.type}`);
  return 'dnd_added';
}

async function calendarEffect(tx: Queryable, e: Envelope, phone: string | undefined): Promise<string> {
  const cancelled = e.type === 'booking.cancelled' || e.type === 'booking.canceled';
  if (e.type !== 'booking.created' && !cancelled) return 'recorded';
  const bookingId = str(e.data.booking_id);
  if (!bookingId) throw new ApiError('validation_failed', 'data.booking_id is required', { fields: [{ path: 'body.data.booking_id', message: 'required' }] });
  const start = typeof e.data.start === 'string' && !Number.isNaN(Date.parse(e.data.start)) ? new Date(e.data.start).toISOString() : null;
  await tx.query(
    `INSERT INTO calendar_bookings (id, tenant_id, booking_id, call_id, lead_id, phone, status, starts_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)
     ON CONFLICT (tenant_id, booking_id) DO UPDATE SET status = EXCLUDED.status,
       call_id = COALESCE(EXCLUDED.call_id, calendar_bookings.call_id), lead_id = COALESCE(EXCLUDED.lead_id, calendar_bookings.lead_id),
       phone = COALESCE(EXCLUDED.phone, calendar_bookings.phone), starts_at = COALESCE(EXCLUDED.starts_at, calendar_bookings.starts_at), updated_at = now()`,
    [newId('bkg'), e.tenant_id, bookingId, str(e.data.call_id), str(e.data.lead_id), phone ?? null, cancelled ? 'cancelled' : 'booked', start]);
  return cancelled ? 'booking_cancelled' : 'booking_stored';
}

export async function processEvent(db: Db, source: Source, e: Envelope, addToDnd?: DndWriter): Promise<{ id: string; duplicate: boolean; effect: string }> {
  const phone = phoneOf(e.data);
  return db.transaction(async (tx) => {
    const tenant = await tx.query('SELECT 1 FROM tenants WHERE id = $1', [e.tenant_id]);
    if (!tenant.rows[0]) throw notFound('tenant');
    const seen = await tx.query<{ effect: string }>('SELECT effect FROM inbound_webhook_events WHERE tenant_id = $1 AND source = $2 AND event_id = $3 FOR UPDATE', [e.tenant_id, source, e.id]);
    if (seen.rows[0]) return { id: e.id, duplicate: true, effect: seen.rows[0].effect };
    const effect = source === 'crm' ? await crmEffect(tx, e, phone, addToDnd) : await calendarEffect(tx, e, phone);
    const ins = await tx.query(`INSERT INTO inbound_webhook_events (tenant_id, source, event_id, type, subject_hash, effect) VALUES ($1,$2,$3,$4,$5,$6)
      ON CONFLICT DO NOTHING`, [e.tenant_id, source, e.id, e.type, phone ? subjectHash(phone) : null, effect]);
    // a concurrent delivery of the same id committed first: ours rolls back so the effect is not applied twice
    if (ins.rowCount === 0) throw new ConcurrentDelivery();
    return { id: e.id, duplicate: false, effect };
  }).catch(async (err) => {
    if (!(err instanceof ConcurrentDelivery)) throw err;
    return { id: e.id, duplicate: true, effect: 'concurrent' };
  });
}

class ConcurrentDelivery extends Error {}
