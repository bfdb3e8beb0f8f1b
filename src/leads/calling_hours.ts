/**
 * Calling hours in the callee's local time (TRAI: 09:00-21:00). Pure functions of an instant and zones.
 * Window: [startHour:00, endHour:00) local wall clock, evaluated in every zone given (all must be open).
 */
export interface CallingHours { startHour: number; endHour: number }
export const TRAI_HOURS: CallingHours = { startHour: 9, endHour: 21 };

const fmtCache = new Map<string, Intl.DateTimeFormat>();
function fmt(tz: string): Intl.DateTimeFormat {
  let f = fmtCache.get(tz);
  if (!f) fmtCache.set(tz, (f = new Intl.DateTimeFormat('en-US', {
    timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  })));
  return f;
}

/** Offset of `tz` from UTC at instant `at`, in ms (local = utc + offset), read with Intl (slow: see offsetMs). */
function formattedOffsetMs(at: Date, tz: string): number {
  const p: Record<string, number> = {};
  for (const part of fmt(tz).formatToParts(at)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(at.getTime() / 1000) * 1000;
}

/**
 * Offset of `tz` from UTC at instant `at`, in ms, memoised per zone and quarter hour of UTC time: every zone's
 * offset today is a multiple of 15 minutes and changes at a local wall-clock time on a quarter hour, so it is
 * constant within each UTC quarter hour. formatToParts was the costliest step of a lead's gate.
 */
const QUARTER_HOUR_MS = 900_000;
const offsets = new Map<string, number>();
function offsetMs(at: Date, tz: string): number {
  const bucket = Math.floor(at.getTime() / QUARTER_HOUR_MS);
  const key = `${tz} ${bucket}`;
  let off = offsets.get(key);
  if (off === undefined) {
    off = formattedOffsetMs(new Date(bucket * QUARTER_HOUR_MS), tz);
    if (offsets.size >= 10_000) offsets.clear();
    offsets.set(key, off);
  }
  return off;
}

/** Local wall-clock fields of `at` in `tz`. */
function local(at: Date, tz: string) {
  const l = new Date(at.getTime() + offsetMs(at, tz));
  return { y: l.getUTCFullYear(), mo: l.getUTCMonth() + 1, d: l.getUTCDate(), h: l.getUTCHours(), mi: l.getUTCMinutes(), s: l.getUTCSeconds() };
}

/** The instant at which the local wall clock of `tz` reads y-mo-d h:00 (two passes settle DST shifts). */
function instantOf(y: number, mo: number, d: number, h: number, tz: string): Date {
  const wall = Date.UTC(y, mo - 1, d, h);
  let guess = wall - offsetMs(new Date(wall), tz);
  guess = wall - offsetMs(new Date(guess), tz);
  return new Date(guess);
}

export function isOpen(at: Date, tz: string, hours: CallingHours = TRAI_HOURS): boolean {
  const h = local(at, tz).h;
  return h >= hours.startHour && h < hours.endHour;
}

export const isOpenEverywhere = (at: Date, zones: string[], hours: CallingHours = TRAI_HOURS) => zones.every((z) => isOpen(at, z, hours));

/**
 * The earliest instant >= now at which every zone is inside calling hours, or undefined when the zones'
 * windows never overlap. The overlap always begins at some zone's window start, so only those are tried.
 */
export function nextWindowStart(now: Date, zones: string[], hours: CallingHours = TRAI_HOURS): Date | undefined {
  if (isOpenEverywhere(now, zones, hours)) return now;
  const candidates: Date[] = [];
  for (const tz of zones) {
    const l = local(now, tz);
    for (let day = 0; day <= 2; day++) {
      const start = instantOf(l.y, l.mo, l.d + day, hours.startHour, tz); // Date.UTC normalises day overflow
      if (start.getTime() > now.getTime()) candidates.push(start);
    }
  }
  candidates.sort((a, b) => a.getTime() - b.getTime());
  return candidates.find((c) => isOpenEverywhere(c, zones, hours));
}
