/**
 * Resolves spoken appointment phrases ("tomorrow at 10 am", "next Tuesday at 3 pm", "November 25th at 14:30",
 * "Friday afternoon") against a clock and an IANA time zone into an instant (ISO 8601 with offset).
 *
 * Rules: "next <weekday>" and a bare weekday both mean the coming one (1-7 days ahead for "next"; a bare weekday
 * naming today means today if the time is still ahead, else a week on). A time without a day means today if still
 * ahead, else tomorrow. A bare hour "at 3" is read inside the calling hours (09:00-21:00): 9-11 am, 12 noon, 1-8 pm,
 * unless a part of day says otherwise ("four in the morning"). Morning 10:00, afternoon 15:00, evening 18:00.
 * Times come in words as callers say them: "four p m", "eleven thirty", "half past two", "at eleven".
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

const HOUR_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
};
const MINUTE_WORDS: Record<string, number> = { fifteen: 15, thirty: 30, 'forty five': 45, 'forty-five': 45, 'o five': 5 };
const HOUR_RE = Object.keys(HOUR_WORDS).join('|');
/**
 * After a number, words that make it an amount, not an hour: "around" and "at" lead both ("around two hundred fifty
 * thousand dollars", "at most three crore"), so such a number is no time.
 */
const AMOUNT_NEXT = String.raw`(?!\s*(?:%|(?:st|nd|rd|th|k|hundred|thousand|lakhs?|lacs?|crores?|million|billion|point|rupees|dollars?|euros?|pounds?)\b))`;

/**
 * Spoken times to digits: "four p m" -> "4 pm", "at eleven thirty" -> "at 11:30", "half past two" -> "2:30",
 * "eleven o'clock" -> "at 11". Hour words become digits only next to a time marker (at, am/pm, o'clock, minutes),
 * so "two bedroom" stays words.
 */
export function spokenTimeToDigits(text: string): string {
  const hour = (h: string) => HOUR_WORDS[h] ?? Number(h);
  let s = text.replace(/\b([ap])\s+m\b\.?/g, '$1m');
  s = s.replace(new RegExp(String.raw`\b(?:at |around |by )?half past (${HOUR_RE}|\d{1,2})\b`, 'g'), (_, h: string) => `at ${hour(h)}:30`);
  s = s.replace(new RegExp(String.raw`\b(?:at |around |by )?quarter past (${HOUR_RE}|\d{1,2})\b`, 'g'), (_, h: string) => `at ${hour(h)}:15`);
  const spoken = new RegExp(String.raw`\b(at\s+|around\s+|by\s+)?(${HOUR_RE})\b${AMOUNT_NEXT}(?:\s+(fifteen|thirty|forty[- ]five|o five)\b)?(?:\s+(o'?clock)\b)?(?=(\s*(?:am|pm|a\.m\.|p\.m\.)(?![a-z]))?)`, 'g');
  return s.replace(spoken, (all: string, at?: string, h?: string, min?: string, oclock?: string, ampm?: string) => {
    if (!at && !min && !oclock && !ampm) return all;
    const mm = min ? `:${String(MINUTE_WORDS[min.replace('-', ' ')] ?? 0).padStart(2, '0')}` : '';
    return ampm ? `${hour(h!)}${mm}` : `at ${hour(h!)}${mm}`;
  });
}

function parseTime(s: string): Time | undefined {
  let m = /\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])/.exec(s);
  if (m) {
    let h = Number(m[1]) % 12;
    if (m[3].startsWith('p')) h += 12;
    const min = Number(m[2] ?? 0);
    return Number(m[1]) <= 12 && min < 60 ? { h, min } : undefined;
  }
  if (/\b(noon|midday)\b/.test(s)) return { h: 12, min: 0 };
  m = new RegExp(String.raw`\b(?:at|around|by) (\d{1,2})(?::([0-5]\d))?(?: o'?clock)?\b${AMOUNT_NEXT}`).exec(s);
  if (m && Number(m[1]) >= 1 && Number(m[1]) <= 12) {
    const h = Number(m[1]), min = Number(m[2] ?? 0);
    if (/\bmorning\b/.test(s)) return { h: h % 12, min };
    if (/\b(afternoon|evening|tonight|night)\b/.test(s)) return { h: (h % 12) + 12, min };
    // inside the calling hours (09:00-21:00): 9-11 in the morning, 12 noon, 1-8 in the afternoon or evening
    return { h: h >= 9 && h <= 11 ? h : h === 12 ? 12 : h + 12, min };
  }
  m = /\b([01]?\d|2[0-3]):([0-5]\d)\b/.exec(s);
  if (m) return { h: Number(m[1]), min: Number(m[2]) };
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
  const s = spokenTimeToDigits(text.toLowerCase().replace(/[^a-z0-9:.' -]+/g, ' ').replace(/\s+/g, ' '));
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
