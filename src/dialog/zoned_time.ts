/**
 * Wall-clock arithmetic in an IANA time zone with only Intl (no tz library): offsets come from formatToParts,
 * so daylight-saving changes are honoured. Dates are handled as local calendar days {y, m, d}.
 */

export interface LocalDate { y: number; m: number; d: number; weekday: number /* 0 = Sunday */ }

const formatters = new Map<string, Intl.DateTimeFormat>();
function partsFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export function isValidTimeZone(timeZone: string): boolean {
  try { partsFormatter(timeZone); return true; } catch { return false; }
}

function wallClock(utcMs: number, timeZone: string) {
  const parts = partsFormatter(timeZone).formatToParts(new Date(utcMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { y: get('year'), m: get('month'), d: get('day'), h: get('hour'), min: get('minute'), s: get('second') };
}

/** Offset of the zone from UTC at an instant, in minutes (e.g. +330 for Asia/Kolkata). */
export function offsetMinutes(utcMs: number, timeZone: string): number {
  const w = wallClock(Math.floor(utcMs / 1000) * 1000, timeZone);
  return Math.round((Date.UTC(w.y, w.m - 1, w.d, w.h, w.min, w.s) - Math.floor(utcMs / 1000) * 1000) / 60_000);
}

export function localDateOf(utcMs: number, timeZone: string): LocalDate {
  const w = wallClock(utcMs, timeZone);
  return { y: w.y, m: w.m, d: w.d, weekday: new Date(Date.UTC(w.y, w.m - 1, w.d)).getUTCDay() };
}

export function addDays(date: LocalDate, days: number): LocalDate {
  const t = new Date(Date.UTC(date.y, date.m - 1, date.d + days));
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate(), weekday: t.getUTCDay() };
}

/** The instant of a local wall time in the zone (two passes settle the offset around DST changes). */
export function zonedToUtc(date: { y: number; m: number; d: number }, hour: number, minute: number, timeZone: string): number {
  const guess = Date.UTC(date.y, date.m - 1, date.d, hour, minute);
  const first = guess - offsetMinutes(guess, timeZone) * 60_000;
  return guess - offsetMinutes(first, timeZone) * 60_000;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** ISO 8601 with the zone's offset at that instant, e.g. 2026-11-24T15:00:00+05:30. */
export function isoWithOffset(utcMs: number, timeZone: string): string {
  const w = wallClock(utcMs, timeZone);
  const off = offsetMinutes(utcMs, timeZone);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  return `${w.y}-${pad(w.m)}-${pad(w.d)}T${pad(w.h)}:${pad(w.min)}:${pad(w.s)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** "Tuesday, November 24 at 3:00 PM" in the zone, for the agent to read back. */
export function spokenSlot(utcMs: number, timeZone: string): string {
  const day = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'long', month: 'long', day: 'numeric' }).format(utcMs);
  const time = new Intl.DateTimeFormat('en-US', { timeZone, hour: 'numeric', minute: '2-digit' }).format(utcMs);
  return `${day} at ${time}`;
}
