/** Exotel's StatusCallback as the end of our call. */
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
