/**
 * The live provider implementations, by slot and provider name (the names of src/providers/catalog.ts). A
 * provider is wired here and nowhere else: createAdapters and createTools build from these maps, and
 * GET /v1/integrations reports a slot live only when its provider is here.
 */
import type { ProviderContext } from './context.js';
import type { DialogAdapter, SpeechToTextAdapter, TextToSpeechAdapter } from '../adapters/types.js';
import type { ToolIntegration } from '../tools/types.js';
import type { Slot } from './catalog.js';
import { isCarrier } from '../carriers/index.js';
import { createOpenAiStt } from './openai_stt/index.js';
import { createDeepgramStt } from './deepgram/index.js';
import { createOpenAiChatDialog } from './openai_chat/dialog.js';
import { elevenLabsTts } from './elevenlabs/tts.js';
import { cartesiaTts } from './cartesia/tts.js';
import { hubSpotCrm } from './hubspot/crm.js';
import { calComBooking } from './calcom/booking.js';
import { whatsAppTemplate } from './whatsapp/template.js';

export type { ProviderContext };

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
export function isImplemented(slot: Slot, provider: string): boolean {
  switch (slot) {
    case 'carrier': return isCarrier(provider); // src/carriers: wired by the call engine
    case 'speech_to_text': return provider in STT_PROVIDERS;
    case 'dialog_model': return provider in DIALOG_PROVIDERS;
    case 'text_to_speech': return provider in TTS_PROVIDERS;
    default: return provider in TOOL_PROVIDERS[slot];
  }
}
