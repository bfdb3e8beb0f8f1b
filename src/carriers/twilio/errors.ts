/**
 * What a Twilio REST error means for the call we tried to place: every one ends it as `failed` (the number, the
 * caller id or the account cannot make this call now), with the carrier's own words kept as the call's
 * carrier_status: `error <code> <reason>: <Twilio's message>`. Retries (rate limit, 5xx) happened before this.
 */
import type { PlaceCallResult } from '../../adapters/types.js';
import type { TwilioApiError } from './rest.js';

/** Twilio error codes we name (README.md, "Errors"). */
export const TWILIO_ERROR_REASONS: Readonly<Record<number, string>> = {
  20003: 'authentication_failed',
  20404: 'not_found',
  20429: 'rate_limited',
  21210: 'unverified_caller_id',
  21211: 'invalid_number',
  21212: 'invalid_caller_id',
  21213: 'caller_id_required',
  21214: 'unreachable_number',
  21215: 'geo_permission',
  21216: 'number_blocked',
  21217: 'invalid_number',
  21219: 'unverified_number',
};

export function reasonOf(err: TwilioApiError): string {
  if (err.code !== undefined && TWILIO_ERROR_REASONS[err.code]) return TWILIO_ERROR_REASONS[err.code];
  if (err.httpStatus === 429) return 'rate_limited';
  if (err.httpStatus >= 500) return 'carrier_unavailable';
  if (err.httpStatus === 401) return 'authentication_failed';
  return 'rejected';
}

/** The outcome of a call Twilio refused to create. */
export function outcomeOfApiError(err: TwilioApiError): PlaceCallResult {
  const code = err.code ?? err.httpStatus;
  return { carrierCallId: '', outcome: 'failed', carrierStatus: `error ${code} ${reasonOf(err)}: ${err.message}`.slice(0, 300) };
}
