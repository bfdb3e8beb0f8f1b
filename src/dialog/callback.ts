/**
 * When a caller asked to be called back: the time they named ("tomorrow at five", "in two hours", "Monday
 * morning"), moved to the next opening of the calling hours when it falls outside them (09:00-21:00 in the
 * callee's zone, src/leads/calling_hours.ts). A day without a time means 10:00 that day.
 */
import { nextWindowStart } from '../leads/calling_hours.js';
import { parseSlot } from './slots.js';
import { isoWithOffset, spokenSlot } from './zoned_time.js';

export interface CallbackTime { iso: string; spoken: string; moved: boolean }

const COUNT: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, ten: 10, fifteen: 15, twenty: 20, thirty: 30, half: 0.5 };

function relative(text: string, now: Date): Date | undefined {
  const m = /\bin (?:about |around )?(an?|one|two|three|four|five|six|ten|fifteen|twenty|thirty|half an?|\d{1,3}) (hours?|minutes?|mins?)\b/i.exec(text);
  if (!m) return undefined;
  const n = COUNT[m[1].toLowerCase().split(' ')[0]] ?? Number(m[1]);
  const unitMs = /^h/i.test(m[2]) ? 3_600_000 : 60_000;
  return new Date(now.getTime() + n * unitMs);
}

export function callbackInstant(text: string, now: Date, timeZone: string): CallbackTime | undefined {
  let at = relative(text, now);
  if (!at) {
    const slot = parseSlot(text, now, timeZone);
    if (slot.kind === 'slot') at = new Date(slot.utcMs);
    else if (slot.kind === 'missing_time') {
      const morning = parseSlot(`${text} at 10 am`, now, timeZone);
      if (morning.kind === 'slot') at = new Date(morning.utcMs);
    }
  }
  if (!at || at.getTime() <= now.getTime()) return undefined;
  const open = nextWindowStart(at, [timeZone]) ?? at;
  return { iso: isoWithOffset(open.getTime(), timeZone), spoken: spokenSlot(open.getTime(), timeZone), moved: open.getTime() !== at.getTime() };
}
