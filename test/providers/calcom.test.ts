/**
 * calendar_booking against a local fake of Cal.com's v2 bookings endpoint: the slot is sent in UTC with the
 * pinned cal-api-version, the callee as attendee; a taken slot, a bad key, 429 (retried), 500 (not retried: it
 * may have booked), 503 (retried) and an unusable slot all end as statuses.
 */
import t, { type Test } from 'tap';
import { createLogger } from '../../src/log.js';
import { createLocalTools, type ToolInvocation } from '../../src/tools/index.js';
import { CalComBooking } from '../../src/providers/calcom/booking.js';
import { startCalComFake } from '../fakes/calcom.js';

const KEY = 'cal_live_test';
const log = createLogger('silent');

async function setup(t: Test, o: { defaultEmail?: string; emailRequired?: boolean; key?: string } = {}) {
  const fake = await startCalComFake({ apiKey: KEY, eventTypeId: 123, emailRequired: o.emailRequired });
  t.teardown(() => fake.close());
  const booking = new CalComBooking({ apiKey: o.key ?? KEY, baseUrl: fake.url, eventTypeId: 123, defaultEmail: o.defaultEmail, log });
  return { fake, runner: createLocalTools({ integrations: { calendar_booking: booking } }) };
}

const inv = (args: Record<string, string>): ToolInvocation => ({ tenantId: 't', callId: 'call_9', tool: 'calendar_booking', arguments: args, to: '+919812345678' });
const slot = { start: '2026-09-01T10:00:00+05:30', time_zone: 'Asia/Kolkata', customer_name: 'Asha', title: 'Site visit' };

t.test('books the slot in UTC with the callee as attendee: 201_created from the real answer', async (t) => {
  const { fake, runner } = await setup(t, { defaultEmail: 'visits@acme.example' });
  const out = await runner.run(inv(slot), { timeoutMs: 3000 });
  t.equal(out.status, '201_created');
  t.match(out.result, { booking_uid: /^[0-9a-f-]{36}$/, start: '2026-09-01T04:30:00.000Z', status: 'accepted' });
  const r = fake.requests[0];
  t.equal(r.headers['cal-api-version'], '2024-08-13');
  t.equal(r.headers.authorization, `Bearer ${KEY}`);
  t.same(r.body, { start: '2026-09-01T04:30:00.000Z', eventTypeId: 123, metadata: { call_id: 'call_9' },
    attendee: { name: 'Asha', timeZone: 'Asia/Kolkata', email: 'visits@acme.example', phoneNumber: '+919812345678' } });
});

t.test("the caller's own email is preferred; no email at all is Cal.com's 400 to report", async (t) => {
  const { fake, runner } = await setup(t, { defaultEmail: 'visits@acme.example' });
  await runner.run(inv({ ...slot, email: 'asha@example.com' }), { timeoutMs: 3000 });
  t.equal(fake.requests[0].body.attendee.email, 'asha@example.com');
  const { runner: strict } = await setup(t);
  const out = await strict.run(inv(slot), { timeoutMs: 3000 });
  t.equal(out.status, '400_bad_request');
  t.match(out.result, { error: /email is required/ });
});

t.test('a slot already taken: the provider refusal is recorded', async (t) => {
  const { runner } = await setup(t, { emailRequired: false });
  t.equal((await runner.run(inv(slot), { timeoutMs: 3000 })).status, '201_created');
  const again = await runner.run(inv(slot), { timeoutMs: 3000 });
  t.equal(again.status, '400_bad_request');
  t.match(again.result, { error: /not available/ });
});

t.test('429 and 503 are retried (nothing was booked); 500 is not (it may have been)', async (t) => {
  const { fake, runner } = await setup(t, { emailRequired: false });
  fake.injectNext({ status: 429, headers: { 'retry-after': '0' }, body: { status: 'error', error: { code: 'ThrottlerException', message: 'Too Many Requests' } } },
    { status: 503, body: { status: 'error', error: { code: 'ServiceUnavailable', message: 'down' } } });
  t.equal((await runner.run(inv(slot), { timeoutMs: 3000 })).status, '201_created');
  t.equal(fake.requests.length, 3);
  fake.injectNext({ status: 500, body: { status: 'error', error: { code: 'InternalServerErrorException', message: 'boom' } } });
  const out = await runner.run(inv({ ...slot, start: '2026-09-02T10:00:00+05:30' }), { timeoutMs: 3000 });
  t.equal(out.status, '500_internal_error');
  t.equal(fake.requests.length, 4, 'not retried');
});

t.test('a bad key is 401; a slot without an offset never leaves (400)', async (t) => {
  const { fake, runner } = await setup(t, { key: 'wrong', emailRequired: false });
  t.equal((await runner.run(inv(slot), { timeoutMs: 3000 })).status, '401_unauthorized');
  t.equal((await runner.run(inv({ ...slot, start: '2026-09-01 10:00' }), { timeoutMs: 3000 })).status, '400_bad_request');
  t.equal(fake.requests.length, 1);
});

t.test('a dropped connection on the booking is not retried and ends as a status', async (t) => {
  const { fake, runner } = await setup(t, { emailRequired: false });
  fake.injectNext({ status: 0, drop: true });
  const out = await runner.run(inv(slot), { timeoutMs: 3000 });
  t.equal(out.status, '503_unavailable');
  t.equal(fake.requests.length, 1);
});
