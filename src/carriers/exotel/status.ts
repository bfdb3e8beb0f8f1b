/** Exotel's StatusCallback as the end of our call, and its numbers as E.164. */
import type { CarrierEnd } from '../call_tracker.js';

/** Exotel's Status as the end of our call. */
export function exotelEnd(status: string): CarrierEnd {
  switch (status) {
    case 'busy': return 'busy';
    case 'no-answer': return 'no_answer';
    case 'completed': return 'completed';
    default: return 'failed'; // failed, canceled and anything unknown
  }
}

/**
 * An Exotel number as E.164. Exotel (India) writes them as dialled there: `0` and the 10-digit number, the number
 * alone, `91` and it, or E.164 already.
 */
export function exotelE164(n: string | undefined): string {
  const d = (n ?? '').replace(/[\s()-]/g, '');
  if (/^\+[1-9]\d{6,14}$/.test(d)) return d;
  if (/^0\d{10}$/.test(d)) return `+91${d.slice(1)}`;
  if (/^\d{10}$/.test(d)) return `+91${d}`;
  if (/^91\d{10}$/.test(d)) return `+${d}`;
  return d;
}
