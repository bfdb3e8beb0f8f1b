/** Exotel, the live carrier CARRIER=exotel selects (README.md). */
export { createExotelCarrier } from './carrier.js';
export { exotelCodec, ExotelStream } from './codec.js';
