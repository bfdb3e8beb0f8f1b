/** Twilio, the live carrier CARRIER=twilio selects (see README.md). */
import type { LiveCarrierFactory } from '../carrier.js';
import { TwilioCarrier } from './carrier.js';

export const createTwilioCarrier: LiveCarrierFactory = (ctx) => new TwilioCarrier(ctx);
export { TwilioCarrier };
