/**
 * The carriers, by name: each is a folder of its own (README.md says what one holds), wired here and nowhere else.
 * The engine serves the live carrier CARRIER names, or else the simulator's edge: the Twilio media protocol on
 * /v1/media/twilio without a signature (the simulator's callees, and an adapter server's carrier, speak it), and
 * no HTTP callbacks.
 */
import { selectSlot } from '../providers/catalog.js';
import type { CarrierEdge, CarrierName, LiveCarrier, LiveCarrierContext, LiveCarrierFactory } from './contract.js';
import { mediaSocket } from './media_socket.js';
import { createExotelCarrier } from './exotel/index.js';
import { createPlivoCarrier } from './plivo/index.js';
import { createTwilioCarrier, twilioCodec } from './twilio/index.js';

export const CARRIERS: Readonly<Record<CarrierName, LiveCarrierFactory>> = {
  twilio: createTwilioCarrier,
  plivo: createPlivoCarrier,
  exotel: createExotelCarrier,
};

export const isCarrier = (name: string): name is CarrierName => Object.hasOwn(CARRIERS, name);

/** The live carrier CARRIER selects, when it is implemented and keyed; undefined = the simulator or an adapter server. */
export function liveCarrier(ctx: LiveCarrierContext): LiveCarrier | undefined {
  if (ctx.config.ADAPTER_CARRIER_URL) return undefined;
  const sel = selectSlot(ctx.config as unknown as Record<string, unknown>, 'carrier');
  return sel.live && sel.provider && isCarrier(sel.provider) ? CARRIERS[sel.provider](ctx) : undefined;
}

/** The simulator's carrier edge: the Twilio media protocol, unsigned (the call's capability still applies). */
export function simulatorEdge(ctx: Pick<LiveCarrierContext, 'log' | 'capabilities' | 'onStream'>): CarrierEdge {
  const mediaUpgrade = mediaSocket(twilioCodec, ctx);
  return { name: 'twilio', mediaUpgrade, async close() { mediaUpgrade.closeAll(); } };
}

export type { CarrierAnswer, CarrierEdge, CarrierName, CarrierRequest, LiveCarrier, LiveCarrierContext } from './contract.js';
export { browserMediaSocket, BrowserStream, LiveItemTap } from './browser/index.js';
