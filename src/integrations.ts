/**
 * Which provider slots are live and which are simulated, derived only from which keys are present.
 * A slot is live when every key it needs is set; the values themselves never leave this module.
 */
import type { Config } from './config.js';

export const PROVIDER_SLOTS = [
  { slot: 'carrier', provider: 'twilio', keys: ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN'] },
  { slot: 'speech_to_text', provider: 'deepgram', keys: ['DEEPGRAM_API_KEY'] },
  { slot: 'dialog_model', provider: 'openai', keys: ['OPENAI_API_KEY'] },
  { slot: 'text_to_speech', provider: 'elevenlabs', keys: ['ELEVENLABS_API_KEY'] },
  { slot: 'crm', provider: 'hubspot', keys: ['HUBSPOT_API_KEY'] },
  { slot: 'calendar', provider: 'calcom', keys: ['CALCOM_API_KEY'] },
  { slot: 'messaging', provider: 'whatsapp', keys: ['WHATSAPP_API_TOKEN'] },
] as const satisfies ReadonlyArray<{ slot: string; provider: string; keys: ReadonlyArray<keyof Config> }>;

export type ProviderSlot = (typeof PROVIDER_SLOTS)[number]['slot'];

export interface SlotStatus {
  slot: ProviderSlot;
  provider: string;
  mode: 'live' | 'simulated';
  keys: { name: string; present: boolean }[];
}

export function integrationStatus(config: Config): SlotStatus[] {
  return PROVIDER_SLOTS.map(({ slot, provider, keys }) => {
    const present = keys.map((name) => ({ name, present: Boolean(config[name]) }));
    return { slot, provider, mode: present.every((k) => k.present) ? 'live' : 'simulated', keys: present };
  });
}

export const isLive = (config: Config, slot: ProviderSlot) =>
  integrationStatus(config).find((s) => s.slot === slot)?.mode === 'live';
