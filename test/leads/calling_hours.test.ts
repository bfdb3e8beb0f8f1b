/** Calling hours (TRAI 09:00-21:00 callee time) as pure functions: zones from the number, multi-zone overlap, DST. */
import t from 'tap';
import { callingHoursGate } from '../../src/leads/gates.js';
import { calleeTimeZone, zonesFor, toE164 } from '../../src/leads/phone.js';

const at = (s: string) => new Date(s);

t.test('India: 09:00-21:00 IST (UTC+05:30)', async (t) => {
  t.same(callingHoursGate('+919812345678', at('2026-01-10T03:29:00Z')), { allowed: false, reason: 'calling_hours', next_window_at: '2026-01-10T03:30:00.000Z' });
  t.same(callingHoursGate('+919812345678', at('2026-01-10T03:30:00Z')), { allowed: true }, '09:00 sharp is inside');
  t.same(callingHoursGate('+919812345678', at('2026-01-10T15:29:59Z')), { allowed: true }, '20:59:59 is inside');
  t.same(callingHoursGate('+919812345678', at('2026-01-10T15:30:00Z')), { allowed: false, reason: 'calling_hours', next_window_at: '2026-01-11T03:30:00.000Z' }, '21:00 is outside; next day');
});

t.test('explicit timezone wins over the country', async (t) => {
  t.same(callingHoursGate('+919812345678', at('2026-01-10T12:00:00Z'), { timezone: 'America/New_York' }),
    { allowed: false, reason: 'calling_hours', next_window_at: '2026-01-10T14:00:00.000Z' });
});

t.test('a multi-zone country needs every zone open (US: 09:00 Pacific to 21:00 Eastern)', async (t) => {
  t.same(zonesFor('+12025551234').length, 4);
  t.same(callingHoursGate('+12025551234', at('2026-07-10T14:00:00Z')), { allowed: false, reason: 'calling_hours', next_window_at: '2026-07-10T16:00:00.000Z' });
  t.same(callingHoursGate('+12025551234', at('2026-07-10T20:00:00Z')), { allowed: true });
  t.same(callingHoursGate('+12025551234', at('2026-07-11T01:00:00Z')).allowed, false, '21:00 EDT');
});

t.test('DST: London spring-forward day opens at 09:00 BST = 08:00Z', async (t) => {
  t.same(callingHoursGate('+442071234567', at('2026-03-29T07:30:00Z')), { allowed: false, reason: 'calling_hours', next_window_at: '2026-03-29T08:00:00.000Z' });
});

t.test('unknown country falls back to UTC; phone normalisation', async (t) => {
  t.same(zonesFor('+99912345678'), ['UTC']);
  t.equal(toE164('098123 45678', 'IN'), '+919812345678');
  t.equal(toE164('+1 (202) 555-0123', 'IN'), '+12025550123');
  t.throws(() => toE164('12345', 'IN'), { code: 'validation_failed' });
});

t.test('the memoised zone offsets agree with Intl minute by minute across DST changes and odd offsets', async (t) => {
  // isOpen reads the local hour through offsets cached per UTC quarter hour; Intl is the reference.
  const { isOpen } = await import('../../src/leads/calling_hours.js');
  const hourIn = (d: Date, tz: string) => Number(new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', hour: '2-digit' }).format(d));
  const cases: Array<[string, string]> = [
    ['America/New_York', '2026-03-08T05:00:00Z'], ['America/New_York', '2026-11-01T04:00:00Z'],
    ['Europe/London', '2026-03-29T00:00:00Z'], ['Europe/London', '2026-10-25T00:00:00Z'],
    ['Australia/Adelaide', '2026-04-04T15:00:00Z'], ['Asia/Kathmandu', '2026-01-10T02:00:00Z'],
    ['Pacific/Chatham', '2026-04-04T12:00:00Z'], ['Asia/Kolkata', '2026-01-10T03:00:00Z'],
  ];
  let mismatches = 0;
  for (const [tz, from] of cases) {
    for (let m = 0; m < 6 * 60; m += 1) {
      const d = new Date(new Date(from).getTime() + m * 60_000 + 59_000);
      for (const [start, end] of [[9, 21], [0, 24], [1, 3], [2, 4]] as const) {
        const h = hourIn(d, tz);
        if (isOpen(d, tz, { startHour: start, endHour: end }) !== (h >= start && h < end)) mismatches += 1;
      }
    }
  }
  t.equal(mismatches, 0);
});

t.test('a number that reaches no one has no calling hours (the simulator\'s, those reserved for fiction)', async (t) => {
  const night = at('2026-07-10T08:00:00Z'); // 04:00 in New York, 13:30 in India
  for (const n of ['+15005550002', '+12025550123', '+14155550199', '+447700900123']) t.same(callingHoursGate(n, night), { allowed: true }, n);
  t.equal(callingHoursGate('+14155550200', night).allowed, false, '555-0200 is a real number');
  t.equal(callingHoursGate('+447700900999', night).allowed, true);
  t.equal(callingHoursGate('+447700901000', night).allowed, false);
});

t.test('the callee\'s one zone for spoken times, from the same country table', async (t) => {
  t.equal(calleeTimeZone('+919812345678'), 'Asia/Kolkata');
  t.equal(calleeTimeZone('+14155551234'), 'America/New_York', 'several zones: the first listed');
  t.equal(calleeTimeZone('+14155551234', null, { ambiguous: 'none' }), undefined, 'a lead records none it cannot know');
  t.equal(calleeTimeZone('+14155551234', 'America/Los_Angeles'), 'America/Los_Angeles');
  t.equal(calleeTimeZone('+99912345678'), 'UTC');
});
