/**
 * Phone numbers: normalised to E.164 with libphonenumber-js (national input resolved in the default region,
 * DEFAULT_PHONE_REGION), and the callee's time zones derived from the number's country: every zone of the country
 * for calling hours (zonesFor), one zone for reading spoken times (calleeTimeZone). The one place numbers map to zones.
 */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { ApiError } from '../errors.js';

export const E164 = /^\+[1-9]\d{6,14}$/;

/** Returns the E.164 form of `input`, or throws 400 validation_failed naming `field`. */
export function toE164(input: string, defaultRegion: string, field = 'body.phone'): string {
  return parseE164(input, defaultRegion, field).e164;
}

/**
 * toE164, also giving the number's country (derived from the number itself, as a parse of the E.164 form would
 * give it), so a caller that needs both (zonesFor) parses once: parsing is a lead's costliest validation step.
 */
export function parseE164(input: string, defaultRegion: string, field = 'body.phone'): { e164: string; country: string | undefined } {
  const p = parsePhoneNumberFromString(input.trim(), defaultRegion as CountryCode);
  if (!p || !p.isValid()) {
    throw new ApiError('validation_failed', `${field}: not a valid phone number`, { fields: [{ path: field, message: 'not a valid phone number' }] });
  }
  return { e164: p.number, country: p.country };
}

/**
 * Time zones of the countries we know. A country spanning several zones lists them all: calling hours must
 * hold in every one of them (conservative: we cannot tell a mobile number's zone from its digits).
 */
const COUNTRY_ZONES: Record<string, string[]> = {
  IN: ['Asia/Kolkata'], PK: ['Asia/Karachi'], BD: ['Asia/Dhaka'], LK: ['Asia/Colombo'], NP: ['Asia/Kathmandu'],
  AE: ['Asia/Dubai'], SA: ['Asia/Riyadh'], SG: ['Asia/Singapore'], MY: ['Asia/Kuala_Lumpur'], JP: ['Asia/Tokyo'],
  CN: ['Asia/Shanghai'], HK: ['Asia/Hong_Kong'], ID: ['Asia/Jakarta'], PH: ['Asia/Manila'], TH: ['Asia/Bangkok'],
  GB: ['Europe/London'], IE: ['Europe/Dublin'], DE: ['Europe/Berlin'], FR: ['Europe/Paris'], ES: ['Europe/Madrid'],
  IT: ['Europe/Rome'], NL: ['Europe/Amsterdam'], PT: ['Europe/Lisbon'], ZA: ['Africa/Johannesburg'], NG: ['Africa/Lagos'],
  KE: ['Africa/Nairobi'], NZ: ['Pacific/Auckland'], BR: ['America/Sao_Paulo'], MX: ['America/Mexico_City'],
  US: ['America/New_York', 'America/Chicago', 'America/Denver', 'America/Los_Angeles'],
  CA: ['America/Toronto', 'America/Winnipeg', 'America/Edmonton', 'America/Vancouver'],
  AU: ['Australia/Sydney', 'Australia/Adelaide', 'Australia/Perth'],
};

/**
 * Zones for a number: explicit `timezone` wins; else from its country (`country` when the caller already parsed
 * the number, see parseE164); unknown countries use UTC.
 */
export function zonesFor(e164: string, timezone?: string | null, knownCountry?: string): string[] {
  if (timezone) return [timezone];
  const country = knownCountry ?? countryOf(e164);
  return (country && COUNTRY_ZONES[country]) || ['UTC'];
}

/** The country of an E.164 number (memoised: a parse is a lead's costliest validation step), or undefined. */
const countries = new Map<string, string | null>();
export function countryOf(e164: string): string | undefined {
  let c = countries.get(e164);
  if (c === undefined) rememberCountry(e164, (c = parsePhoneNumberFromString(e164)?.country ?? null));
  return c ?? undefined;
}

/** Records the country of a number a caller already parsed (the dispatch schema), so the gates need no second parse. */
export function rememberCountry(e164: string, country: string | undefined | null): void {
  if (countries.size >= 10_000) countries.clear();
  countries.set(e164, country ?? null);
}

/**
 * The one zone in which the callee's spoken times are read ("next Tuesday at 3 pm") and which a lead records:
 * explicit `timezone` wins; else the number's country's zone. A country spanning several zones (US, CA, AU) gives
 * its first listed one when `ambiguous` is 'first' (a slot must be read somewhere), undefined when 'none' (a lead
 * records no zone it cannot know). Unknown countries: UTC, resp. undefined.
 */
export function calleeTimeZone(e164: string, timezone?: string | null, o: { country?: string; ambiguous?: 'first' | 'none' } = {}): string | undefined {
  if (timezone) return timezone;
  const country = o.country ?? countryOf(e164);
  const zones = country ? COUNTRY_ZONES[country] : undefined;
  if (zones?.length === 1) return zones[0];
  if (o.ambiguous === 'none') return undefined;
  return zones?.[0] ?? 'UTC';
}

/**
 * Numbers that reach no one, so no callee's calling hours apply: the simulator's (+1500555…, src/adapters/sim_numbers.ts)
 * and those reserved for fiction (NANP 555-0100 to 555-0199; UK drama numbers 07700 900000 to 900999).
 */
export function reachesNobody(e164: string): boolean {
  return e164.startsWith('+1500555') || /^\+1\d{3}5550(1\d\d)$/.test(e164) || /^\+447700900\d{3}$/.test(e164);
}

const zoneChecks = new Map<string, boolean>();
/** Whether `tz` is an IANA zone this runtime knows (memoised: building a DateTimeFormat is costly). */
export function isTimeZone(tz: string): boolean {
  let ok = zoneChecks.get(tz);
  if (ok === undefined) {
    try { new Intl.DateTimeFormat('en-GB', { timeZone: tz }); ok = true; } catch { ok = false; }
    if (zoneChecks.size < 1000) zoneChecks.set(tz, ok);
  }
  return ok;
}
