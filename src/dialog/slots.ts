/**
 * Resolves spoken appointment phrases ("tomorrow at 10 am", "next Tuesday at 3 pm", "November 25th at 14:30",
 * "Friday afternoon") against a clock and an IANA time zone into an instant (ISO 8601 with offset).
 *
 * Rules: "next <weekday>" and a bare weekday both mean the coming one (1-7 days ahead for "next"; a bare weekday
 * naming today means today if the time is still ahead, else a week on). A time without a day means today if still
 * ahead, else tomorrow. A bare hour "at 3" is read as 8-11 am / 12-7 pm. Morning 10:00, afternoon 15:00, evening 18:00.
 */
import { addDays, isoWithOffset, localDateOf, spokenSlot, zonedToUtc, type LocalDate } from './zoned_time.js';

export type SlotParse =
  | { kind: 'slot'; iso: string; utcMs: number; spoken: string }
  | { kind: 'missing_time'; day: LocalDate }
  | { kind: 'missing_day' }
  | { kind: 'none' };

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

interface Time { h: number; min: number }

function parseTime(s: string): Time | undefined {
  let m = /\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])/.exec(s);
  if (m) {
    let h = Number(m[1]) % 12;
    if (m[3].startsWith('p')) h += 12;
    const min = Number(m[2] ?? 0);
    return Number(m[1]) <= 12 && min < 60 ? { h, min } : undefined;
  }
  m = /\b([01]?\d|2[0-3]):([0-5]\d)\b/.exec(s);
  if (m) return { h: Number(m[1]), min: Number(m[2]) };
  if (/\b(noon|midday)\b/.test(s)) return { h: 12, min: 0 };
  m = /\bat (\d{1,2})(?: o'?clock)?\b(?!\s*(?:st|nd|rd|th|%|k\b|thousand|lakh|dollars?))/.exec(s);
  if (m && Number(m[1]) >= 1 && Number(m[1]) <= 12) {
    const h = Number(m[1]);
    return { h: h >= 8 && h <= 11 ? h : h === 12 ? 12 : h + 12, min: 0 };
  }
  if (/\bmorning\b/.test(s)) return { h: 10, min: 0 };
  if (/\bafternoon\b/.test(s)) return { h: 15, min: 0 };
  if (/\b(evening|tonight)\b/.test(s)) return { h: 18, min: 0 };
  return undefined;
}

const WEEKDAY_RE = new RegExp(`\\b(next|this|coming)?\\s*(${WEEKDAYS.join('|')})\\b`);
const DAY_MONTH_RE = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?(?: of)? (${MONTHS.join('|')})\\b`);
const MONTH_DAY_RE = new RegExp(`\\b(${MONTHS.join('|')}) (\\d{1,2})(?:st|nd|rd|th)?\\b`);

/**
 * Day offset or explicit date (undefined: none named; null: a date that does not exist, e.g. 31 June). `todayOf` is
 * called only when the text names a day: it formats the instant in the callee's zone, which every turn paid before.
 */
function parseDay(s: string, todayOf: () => LocalDate): { date: LocalDate; sameDayWeekday?: boolean } | undefined | null {
  if (/\bday after tomorrow\b/.test(s)) return { date: addDays(todayOf(), 2) };
  if (/\btomorrow\b/.test(s)) return { date: addDays(todayOf(), 1) };
  if (/\b(today|tonight)\b/.test(s)) return { date: todayOf() };
  const wd = WEEKDAY_RE.exec(s);
  if (wd) {
    const today = todayOf();
    const target = WEEKDAYS.indexOf(wd[2]);
    let delta = (target - today.weekday + 7) % 7;
    if (wd[1] === 'next' && delta === 0) delta = 7;
    return { date: addDays(today, delta), sameDayWeekday: delta === 0 };
  }
  const md = DAY_MONTH_RE.exec(s) ?? MONTH_DAY_RE.exec(s);
  if (md) {
    const today = todayOf();
    const [day, month] = /\d/.test(md[1]) ? [Number(md[1]), md[2]] : [Number(md[2]), md[1]];
    const m = MONTHS.indexOf(month) + 1;
    if (day < 1 || day > 31) return null;
    let y = today.y;
    if (m < today.m || (m === today.m && day < today.d)) y++;
    const t = new Date(Date.UTC(y, m - 1, day));
    if (t.getUTCMonth() !== m - 1) return null; // e.g. 31 June
    return { date: { y, m, d: day, weekday: t.getUTCDay() } };
  }
  return undefined;
}

export function parseSlot(text: string, now: Date, timeZone: string): SlotParse {
  const s = text.toLowerCase().replace(/[^a-z0-9:.' ]+/g, ' ').replace(/\s+/g, ' ');
  let today: LocalDate | undefined;
  const todayOf = () => (today ??= localDateOf(now.getTime(), timeZone));
  const time = parseTime(s);
  const day = parseDay(s, todayOf);
  if (day === null) return { kind: 'missing_day' };
  if (!time && !day) return { kind: 'none' };
  if (!time) return { kind: 'missing_time', day: day!.date };
  let date = day?.date ?? todayOf();
  let utcMs = zonedToUtc(date, time.h, time.min, timeZone);
  if ((!day || day.sameDayWeekday) && utcMs <= now.getTime()) {
    date = addDays(date, day ? 7 : 1);
    utcMs = zonedToUtc(date, time.h, time.min, timeZone);
  }
  return { kind: 'slot', iso: isoWithOffset(utcMs, timeZone), utcMs, spoken: spokenSlot(utcMs, timeZone) };
}
