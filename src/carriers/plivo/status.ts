/** Plivo's call news (ring, answer, hang-up callbacks) as our call's end. */
import type { CarrierEnd } from '../call_tracker.js';

/** Plivo's CallStatus (and HangupCause when the status says little) as the end of our call. */
export function plivoEnd(callStatus: string, hangupCause: string): CarrierEnd {
  switch (callStatus) {
    case 'busy': return 'busy';
    case 'no-answer': case 'timeout': return 'no_answer';
    case 'failed': return 'failed';
    case 'cancel': case 'canceled': return 'failed';
    case 'completed': return 'completed';
    default:
      if (/BUSY/i.test(hangupCause)) return 'busy';
      if (/NO_ANSWER|TIMEOUT/i.test(hangupCause)) return 'no_answer';
      return 'failed';
  }
}

/** The carrier's word kept on the call: `status:cause` (busy:USER_BUSY). */
export const plivoStatus = (p: Record<string, string>): string => [p.CallStatus, p.HangupCause].filter(Boolean).join(':');
