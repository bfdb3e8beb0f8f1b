/** Plivo, the live carrier CARRIER=plivo selects (README.md). */
export { createPlivoCarrier } from './carrier.js';
export { plivoCodec, PlivoStream } from './codec.js';
