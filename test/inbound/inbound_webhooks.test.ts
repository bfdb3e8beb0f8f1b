/**
 * Inbound CRM and calendar webhooks with SERVICE_WEBHOOK_SECRET set: a good signature is accepted, a bad one,
 * a missing one, a tampered body and a stale (replayed outside the window) timestamp are 401; a redelivered
 * event id is 200 with duplicate: true and no second effect; calendar bookings are stored against the call.
 */
import t from 'tap';
import { startTestServer, api } from '../helpers/server.js';
import { sign, verify } from '../../src/inbound/signature.js';

const SECRET = 'inbound-webhook-secret-0123456789';
const srv = await startTestServer({ env: { SERVICE_WEBHOOK_SECRET: SECRET, CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' } });
t.teardown(() => srv.close());
const db = srv.services.db;
const now = () => Math.floor(Date.now() / 1000);

async function post(path: string, body: unknown, opts: { t?: number; secret?: string; header?: string | null; tamper?: boolean } = {}) {
  const raw = JSON.stringify(body);
  const sig = opts.header !== undefined ? opts.header : sign(opts.secret ?? SECRET, raw, opts.t ?? now());
  const sent = opts.tamper ? raw.replace('booked', 'bookeD') : raw;
  return api(srv.baseUrl, 'POST', path, { raw: sent, headers: { 'content-type': 'application/json', ...(sig ? { 'x-signature': sig } : {}) } });
}

const booking = (id: string, type = 'booking.created') => ({ id, type, tenant_id: 'ten_dev', data: { booking_id: 'bk_1', call_id: 'call_0123456789abcdef01234567', phone: '+919833333333', start: '2026-07-01T10:30:00+05:30', note: 'booked' } });

t.test('signature unit: constant format, window, rotation', async (t) => {
  const raw = Buffer.from('{"a":1}');
  const h = sign(SECRET, raw, 1000);
  t.match(h, /^t=1000,v1=[0-9a-f]{64}$/);
  t.same(verify(h, raw, SECRET, 1000, 300), { ok: true });
  t.same(verify(h, raw, SECRET, 1300, 300), { ok: true }, 'the window edge is inside');
  t.same(verify(h, raw, SECRET, 1301, 300).ok, false, 'stale');
  t.same(verify(h, raw, SECRET, 699, 300).ok, false, 'from the future');
  t.same(verify(`t=1000,v1=${'0'.repeat(64)},${h.split(',')[1]}`, raw, SECRET, 1000, 300), { ok: true }, 'any matching v1 (rotation)');
  t.same(verify('garbage', raw, SECRET, 1000, 300).ok, false);
  t.same(verify(h, Buffer.from('{"a":2}'), SECRET, 1000, 300).ok, false, 'body bound');
});

t.test('good signature: calendar booking stored against the call', async (t) => {
  const r = await post('/webhooks/calendar', booking('evt_cal_1'));
  t.equal(r.status, 200);
  t.match(r.body, { received: true, id: 'evt_cal_1', duplicate: false, effect: 'booking_stored' });
  const row = await db.query<{ status: string; call_id: string; starts_at: Date }>(`SELECT status, call_id, starts_at FROM calendar_bookings WHERE tenant_id = 'ten_dev' AND booking_id = 'bk_1'`);
  t.equal(row.rows[0].status, 'booked');
  t.equal(row.rows[0].call_id, 'call_0123456789abcdef01234567');
  t.equal(new Date(row.rows[0].starts_at).toISOString(), '2026-07-01T05:00:00.000Z');
});

t.test('redelivery is idempotent', async (t) => {
  const r = await post('/webhooks/calendar', booking('evt_cal_1'));
  t.equal(r.status, 200);
  t.match(r.body, { duplicate: true, effect: 'booking_stored' });
  const cancel = await post('/webhooks/calendar', booking('evt_cal_2', 'booking.cancelled'));
  t.match(cancel.body, { duplicate: false, effect: 'booking_cancelled' });
  const again = await post('/webhooks/calendar', booking('evt_cal_2', 'booking.cancelled'));
  t.equal(again.body.duplicate, true);
  const rows = await db.query<{ status: string }>(`SELECT status FROM calendar_bookings WHERE booking_id = 'bk_1'`);
  t.same(rows.rows.map((x) => x.status), ['cancelled'], 'one booking row, cancelled');
  const seen = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM inbound_webhook_events WHERE source = 'calendar'`);
  t.equal(seen.rows[0].n, 2);
});

t.test('bad, missing, tampered and stale signatures are 401', async (t) => {
  const cases: Array<[string, Parameters<typeof post>[2]]> = [
    ['wrong secret', { secret: 'another-secret-of-enough-length' }],
    ['missing header', { header: null }],
    ['malformed header', { header: 'sha256=abc' }],
    ['tampered body', { tamper: true }],
    // end to end the margin is a minute (a slow request must not cross the edge); the exact edge is unit-tested above
    ['stale timestamp (replay after the window)', { t: now() - 360 }],
    ['timestamp from the future', { t: now() + 360 }],
  ];
  for (const [name, opts] of cases) {
    const r = await post('/webhooks/calendar', booking(`evt_bad_${name}`), opts);
    t.equal(r.status, 401, name);
    t.equal(r.body.code, 'unauthenticated', `${name}: code`);
  }
  const stored = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM inbound_webhook_events WHERE event_id LIKE 'evt_bad_%'`);
  t.equal(stored.rows[0].n, 0, 'nothing recorded from refused deliveries');
});

t.test('CRM events: validation and recording', async (t) => {
  const bad = await post('/webhooks/crm', { id: 'evt_crm_bad', type: 'contact.opted_out', tenant_id: 'ten_dev', data: { phone: '98' } });
  t.equal(bad.status, 400);
  const unknownTenant = await post('/webhooks/crm', { id: 'evt_crm_t', type: 'lead.updated', tenant_id: 'ten_nope', data: {} });
  t.equal(unknownTenant.status, 404);
  const upd = await post('/webhooks/crm', { id: 'evt_crm_1', type: 'lead.updated', tenant_id: 'ten_dev', data: { lead_id: 'lead_x', stage: 'won' } });
  t.match(upd.body, { duplicate: false, effect: 'recorded' });
  const noId = await post('/webhooks/crm', { type: 'lead.updated', tenant_id: 'ten_dev' });
  t.equal(noId.status, 400, 'event id required');
});

t.test('CRM opt-out adds the number to the DND registry, once', async (t) => {
  const e = { id: 'evt_opt_1', type: 'contact.opted_out', tenant_id: 'ten_dev', data: { phone: '+919855555555' } };
  const r = await post('/webhooks/crm', e);
  t.equal(r.status, 200);
  t.match(r.body, { duplicate: false, effect: 'dnd_added' });
  const dnd = await db.query<{ source: string }>(`SELECT source FROM dnd_numbers WHERE tenant_id = 'ten_dev' AND e164 = '+919855555555'`);
  t.same(dnd.rows.map((x) => x.source), ['crm:contact.opted_out']);
  t.match((await post('/webhooks/crm', e)).body, { duplicate: true });
  const upd = await post('/webhooks/crm', { id: 'evt_opt_2', type: 'lead.updated', tenant_id: 'ten_dev', data: { phone: '+919855555556', opted_out: true } });
  t.match(upd.body, { effect: 'dnd_added' });
  const missing = await post('/webhooks/crm', { id: 'evt_opt_3', type: 'contact.opted_out', tenant_id: 'ten_dev', data: {} });
  t.equal(missing.status, 400, 'an opt-out without a phone');
  const stored = await db.query<{ subject_hash: string }>(`SELECT subject_hash FROM inbound_webhook_events WHERE event_id = 'evt_opt_1'`);
  t.match(stored.rows[0].subject_hash, /^[0-9a-f]{64}$/, 'the processed-id log keeps only the hash');
});
