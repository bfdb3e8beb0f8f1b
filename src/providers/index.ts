/**
 * The live provider implementations, by slot and provider name (the names of src/providers/catalog.ts). A
 * provider is wired here and nowhere else: createAdapters and createTools build from these maps, and
 * GET /v1/integrations reports a slot live only when its provider is here.
 */
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { DialogAdapter, SpeechToTextAdapter, TextToSpeechAdapter } from '../adapters/types.js';
import type { ToolIntegration } from '../tools/types.js';
import { selectSlot, type Slot } from './catalog.js';
import type { LiveCarrier, LiveCarrierContext, LiveCarrierFactory } from './carrier.js';
import { createOpenAiStt } from './openai_stt/index.js';
import { createDeepgramStt } from './deepgram/index.js';
import { createOpenAiChatDialog } from './openai_chat/dialog.js';
import { createTwilioCarrier } from './twilio/index.js';
import { createPlivoCarrier } from './plivo/index.js';
import { createExotelCarrier } from './exotel/index.js';
import { elevenLabsTts } from './elevenlabs/tts.js';
import { cartesiaTts } from './cartesia/tts.js';
import { hubSpotCrm } from './hubspot/crm.js';
import { calComBooking } from './calcom/booking.js';
import { whatsAppTemplate } from './whatsapp/template.js';

export interface ProviderContext { config: Config; log: Logger }

type Factory<T> = (ctx: ProviderContext) => T;

export const STT_PROVIDERS: Record<string, Factory<SpeechToTextAdapter>> = {
  openai: createOpenAiStt,
  deepgram: createDeepgramStt,
};
export const DIALOG_PROVIDERS: Record<string, Factory<DialogAdapter>> = { openai: createOpenAiChatDialog };
export const TTS_PROVIDERS: Record<string, Factory<TextToSpeechAdapter>> = {
  elevenlabs: elevenLabsTts,
  cartesia: cartesiaTts,
};
export const TOOL_PROVIDERS: Record<'crm' | 'calendar' | 'messaging', Record<string, Factory<ToolIntegration>>> = {
  crm: { hubspot: hubSpotCrm },
  calendar: { calcom: calComBooking },
  messaging: { whatsapp: whatsAppTemplate },
};
/** carriers are wired by the call engine (they need its media capabilities and stream hand-off) */
export const CARRIER_PROVIDERS: Record<string, LiveCarrierFactory> = {
  twilio: createTwilioCarrier,
  plivo: createPlivoCarrier,
  exotel: createExotelCarrier,
};

/** The live carrier CARRIER selects, when it is implemented and keyed; undefined = the simulator or an adapter server. */
export function liveCarrier(ctx: LiveCarrierContext): LiveCarrier | undefined {
  if (ctx.config.ADAPTER_CARRIER_URL) return undefined;
  const sel = selectSlot(ctx.config as unknown as Record<string, unknown>, 'carrier');
  return sel.live ? CARRIER_PROVIDERS[sel.provider!]?.(ctx) : undefined;
}

export function isImplemented(slot: Slot, provider: string): boolean {
  switch (slot) {
    case 'carrier': return provider in CARRIER_PROVIDERS;
    case 'speech_to_text': return provider in STT_PROVIDERS;
    case 'dialog_model': return provider in DIALOG_PROVIDERS;
    case 'text_to_speech': return provider in TTS_PROVIDERS;
    default: return provider in TOOL_PROVIDERS[slot];
  }
}
