import t from 'tap';
import { parseSlot } from '../../src/dialog/index.js';

const SUNDAY_EVENING_UTC = new Date('2026-11-22T18:00:00Z'); // Sunday 18:00 UTC
const iso = (text: string, tz: string, now = SUNDAY_EVENING_UTC) => {
  const r = parseSlot(text, now, tz);
  return r.kind === 'slot' ? r.iso : r.kind;
};

t.test('relative days resolve in the callee time zone, with its offset', async (t) => {
  t.equal(iso('tomorrow at 10 am', 'UTC'), '2026-11-23T10:00:00+00:00');
  // 18:00 UTC is already Monday 02:00 in Singapore: "tomorrow" is Tuesday there
  t.equal(iso('tomorrow at 10 am', 'Asia/Singapore'), '2026-11-24T10:00:00+08:00');
  t.equal(iso('tomorrow at 10 am', 'Asia/Kolkata'), '2026-11-23T10:00:00+05:30');
  t.equal(iso('tomorrow at 10 am', 'America/Los_Angeles'), '2026-11-23T10:00:00-08:00');
  t.equal(iso('day after tomorrow at noon', 'UTC'), '2026-11-24T12:00:00+00:00');
});

t.test('weekdays: next/this/bare mean the coming one', async (t) => {
  t.equal(iso('next Tuesday at 3 pm', 'America/New_York'), '2026-11-24T15:00:00-05:00');
  t.equal(iso('on friday at 11:30 am', 'Europe/London'), '2026-11-27T11:30:00+00:00');
  t.equal(iso('Sunday at 9 am', 'UTC'), '2026-11-29T09:00:00+00:00', 'today named but already past: a week on');
  t.equal(iso('Sunday at 9 pm', 'UTC'), '2026-11-22T21:00:00+00:00', 'today named and still ahead: today');
  t.equal(iso('next sunday at 9 pm', 'UTC'), '2026-11-29T21:00:00+00:00', '"next" never means today');
});

t.test('times: am/pm, 24 h, bare hours, parts of day; time alone means the next occurrence', async (t) => {
  t.equal(iso('Monday at 14:30', 'UTC'), '2026-11-23T14:30:00+00:00');
  t.equal(iso('Monday at 4', 'UTC'), '2026-11-23T16:00:00+00:00');
  t.equal(iso('Monday at 9', 'UTC'), '2026-11-23T09:00:00+00:00');
  t.equal(iso('friday afternoon', 'UTC'), '2026-11-27T15:00:00+00:00');
  t.equal(iso('monday morning', 'UTC'), '2026-11-23T10:00:00+00:00');
  t.equal(iso('at 10:30 p.m.', 'UTC'), '2026-11-22T22:30:00+00:00', 'later today');
  t.equal(iso('at 9 am', 'UTC'), '2026-11-23T09:00:00+00:00', 'already past today: tomorrow');
  t.equal(iso('12 pm tomorrow', 'UTC'), '2026-11-23T12:00:00+00:00');
  t.equal(iso('12 am tomorrow', 'UTC'), '2026-11-23T00:00:00+00:00');
});

t.test('explicit dates roll into next year when passed; daylight saving is honoured', async (t) => {
  t.equal(iso('November 25th at 2 pm', 'Europe/Berlin'), '2026-11-25T14:00:00+01:00');
  t.equal(iso('the 3rd of March at 10 am', 'America/New_York'), '2027-03-03T10:00:00-05:00');
  t.equal(iso('March 15 at 10 am', 'America/New_York'), '2027-03-15T10:00:00-04:00', 'after the DST change');
  t.equal(iso('July 1 at 9 am', 'Europe/London'), '2027-07-01T09:00:00+01:00');
  t.equal(iso('31 June at 9 am', 'UTC'), 'missing_day', 'impossible date is not a day');
});

t.test('incomplete or absent slots are reported as such', async (t) => {
  t.equal(iso('tuesday', 'UTC'), 'missing_time');
  t.equal(iso('I am not sure', 'UTC'), 'none');
  t.equal(iso('my budget is 400,000 dollars', 'UTC'), 'none', 'money is not a time');
  // "around" leads a time ("Sunday morning around eleven") and an amount alike: a number that goes on into an amount
  // is none ("around two hundred fifty thousand dollars" was booked for today at 2 pm)
  for (const said of ['my budget is around two hundred fifty thousand dollars', 'around one point two million dollars',
    'about four lakh rupees', 'at most three crore', 'around 2 hundred thousand', 'up to five thousand euros', 'around 12 lakh', 'at 20% down']) {
    t.equal(iso(said, 'UTC'), 'none', said);
  }
  t.equal(iso('Monday around two', 'UTC'), '2026-11-23T14:00:00+00:00', 'a bare hour after "around" is still a time');
  t.equal(iso('Monday at four thirty', 'UTC'), '2026-11-23T16:30:00+00:00');
  const r = parseSlot('next Tuesday at 3 pm', SUNDAY_EVENING_UTC, 'Asia/Kolkata');
  t.match(r, { kind: 'slot', spoken: 'Tuesday, November 24 at 3:00 PM' });
});
