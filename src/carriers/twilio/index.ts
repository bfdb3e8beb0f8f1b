/** Twilio, the live carrier CARRIER=twilio selects (README.md); its codec also serves the simulator's callees. */
import type { LiveCarrierFactory } from '../contract.js';
import { TwilioCarrier } from './carrier.js';

export const createTwilioCarrier: LiveCarrierFactory = (ctx) => new TwilioCarrier(ctx);
export { TwilioCarrier };
export { twilioCodec, TwilioStream } from './codec.js';
