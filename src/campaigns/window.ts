/** Calling windows in a campaign's IANA time zone ("HH:MM" local wall clock, end exclusive; may wrap midnight). */

export const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

export function isTimeZone(tz: string): boolean {
  try { new Intl.DateTimeFormat('en-GB', { timeZone: tz }); return true; } catch { return false; }
}

const fmtCache = new Map<string, Intl.DateTimeFormat>();

/** Minutes since local midnight at `at` in time zone `tz`. */
export function localMinutes(at: Date, tz: string): number {
  let f = fmtCache.get(tz);
  if (!f) fmtCache.set(tz, (f = new Intl.DateTimeFormat('en-GB', { timeZone: tz, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })));
  const parts = f.formatToParts(at);
  const h = Number(parts.find((p) => p.type === 'hour')?.value);
  const m = Number(parts.find((p) => p.type === 'minute')?.value);
  return h * 60 + m;
}

const toMin = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

export function inWindow(at: Date, w: { start: string; end: string; timezone: string }): boolean {
  const m = localMinutes(at, w.timezone), s = toMin(w.start), e = toMin(w.end);
  if (s === e) return true; // a zero-length window is refused at creation; equal means "all day" here
  return s < e ? m >= s && m < e : m >= s || m < e;
}
