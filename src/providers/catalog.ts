/**
 * The live providers of each slot, the setting that selects one, and the keys it cannot run without. One table
 * serves start-up validation (src/config.ts), GET /v1/integrations (src/integrations.ts) and the adapter wiring
 * (src/providers/index.ts, src/carriers/index.ts), so what is reported live is exactly what is wired.
 */

export interface ProviderSpec {
  /** settings it cannot run without */
  keys: readonly string[];
}

export interface SlotSpec {
  /** the setting naming the provider; none for the tool slots, which have one provider each (live when keyed) */
  setting?: string;
  providers: Readonly<Record<string, ProviderSpec>>;
}

export const SLOTS = {
  carrier: {
    setting: 'CARRIER',
    providers: {
      twilio: { keys: ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM_NUMBER'] },
      plivo: { keys: ['PLIVO_AUTH_ID', 'PLIVO_AUTH_TOKEN', 'PLIVO_FROM_NUMBER'] },
      exotel: { keys: ['EXOTEL_ACCOUNT_SID', 'EXOTEL_API_KEY', 'EXOTEL_API_TOKEN', 'EXOTEL_CALLER_ID', 'EXOTEL_APP_ID', 'EXOTEL_HOOK_SECRET'] },
    },
  },
  speech_to_text: {
    setting: 'STT_PROVIDER',
    providers: { deepgram: { keys: ['DEEPGRAM_API_KEY'] }, openai: { keys: ['OPENAI_API_KEY'] } },
  },
  dialog_model: {
    setting: 'DIALOG_PROVIDER',
    providers: { openai: { keys: ['OPENAI_API_KEY'] } },
  },
  text_to_speech: {
    setting: 'TTS_PROVIDER',
    providers: { elevenlabs: { keys: ['ELEVENLABS_API_KEY', 'ELEVENLABS_VOICE_ID'] }, cartesia: { keys: ['CARTESIA_API_KEY', 'CARTESIA_VOICE_ID'] } },
  },
  crm: { providers: { hubspot: { keys: ['HUBSPOT_API_KEY'] } } },
  calendar: { providers: { calcom: { keys: ['CALCOM_API_KEY', 'CALCOM_EVENT_TYPE_ID'] } } },
  messaging: { providers: { whatsapp: { keys: ['WHATSAPP_API_TOKEN', 'WHATSAPP_PHONE_NUMBER_ID', 'WHATSAPP_TEMPLATE_NAME'] } } },
} as const satisfies Record<string, SlotSpec>;

export type Slot = keyof typeof SLOTS;
/** The setting that names a slot's provider (undefined for the tool slots). */
export const settingOf = (slot: Slot): string | undefined => (SLOTS[slot] as SlotSpec).setting;
export const SLOT_NAMES = Object.keys(SLOTS) as Slot[];

/** The slots a call cannot be placed for real without, in live mode (a scripted dialog is allowed, and said). */
export const LIVE_SLOTS: readonly Slot[] = ['carrier', 'speech_to_text', 'text_to_speech'];

type Env = Record<string, unknown>;

export interface SlotSelection {
  slot: Slot;
  /** the provider named by the slot's setting (or the tool slot's only provider); undefined = the simulator */
  provider?: string;
  /** settings the selected provider needs that are not set */
  missing: string[];
  /** live = a real implementation is selected and has every key it needs */
  live: boolean;
  /** the provider was chosen from the keys: live mode, the setting unset, and only this provider's keys all set */
  derived?: boolean;
  /** live mode, the setting unset, and several providers' keys all set: the setting must name one (nothing selected) */
  ambiguous?: string[];
}

/** Providers of a slot whose keys are all set. */
export const keyedProviders = (env: Env, slot: Slot): string[] =>
  Object.entries((SLOTS[slot] as SlotSpec).providers).filter(([, p]) => p.keys.every((k) => env[k])).map(([name]) => name);

/**
 * The provider a slot uses. Its setting decides; unset, in live mode, the keys do: the one provider whose keys are
 * all set is used (derived), several make the choice ambiguous (config.ts asks for it by name). The simulator never
 * derives: keys in a developer's environment do not turn real calls or paid requests on by themselves.
 */
export function selectSlot(env: Env, slot: Slot): SlotSelection {
  const spec: SlotSpec = SLOTS[slot];
  let provider = spec.setting ? (env[spec.setting] as string | undefined) : Object.keys(spec.providers)[0];
  let derived = false;
  if (!provider && spec.setting && env.SERVICE_MODE === 'live') {
    const keyed = keyedProviders(env, slot);
    if (keyed.length > 1) return { slot, missing: [], live: false, ambiguous: keyed };
    if (keyed.length === 1) { provider = keyed[0]; derived = true; }
  }
  if (!provider || provider === 'simulator') return { slot, missing: [], live: false };
  const p = spec.providers[provider];
  const missing = p ? p.keys.filter((k) => !env[k]) : [];
  // a tool slot with none of its keys is simply not configured: simulated, not broken
  if (!spec.setting && missing.length === p!.keys.length) return { slot, provider, missing, live: false };
  return { slot, provider, missing, live: Boolean(p) && missing.length === 0, ...(derived ? { derived } : {}) };
}
