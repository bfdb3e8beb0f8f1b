/**
 * What GET /v1/integrations reports, per provider slot: which provider the settings select, whether it is live
 * (a real implementation is wired and every key it needs is set), behind a gRPC adapter server, or the
 * simulator, and which keys are present or missing. Key values never leave this module.
 */
import type { Config } from './config.js';
import { SLOTS, SLOT_NAMES, selectSlot, settingOf, type Slot, type SlotSpec } from './providers/catalog.js';
import { isImplemented } from './providers/index.js';
import { verifyProvider, type Verification } from './providers/verify.js';

export type ProviderSlot = Slot;

export interface SlotStatus {
  slot: Slot;
  /** the setting that names the provider (null for the tool slots: one provider each, live when its keys are set) */
  setting: string | null;
  /** the selected provider; null = the simulator */
  provider: string | null;
  mode: 'live' | 'simulated' | 'grpc';
  /** the selected provider's keys, or every provider's when none is selected */
  keys: { name: string; present: boolean }[];
  /** keys the selected provider still needs */
  missing: string[];
  /** providers whose keys are all set, ready to be selected */
  ready: string[];
  /** how the provider was chosen: its setting names it, or (live mode, setting unset) only its keys are set */
  chosen_by: 'setting' | 'keys' | null;
  /** why the slot is not live, or how its provider was chosen from the keys, in a sentence */
  note?: string;
  /** GET /v1/integrations?verify=true only: the result of one authenticated read against the provider */
  verification?: Verification;
}

const GRPC_URL: Partial<Record<Slot, keyof Config>> = {
  carrier: 'ADAPTER_CARRIER_URL', speech_to_text: 'ADAPTER_STT_URL', dialog_model: 'ADAPTER_DIALOG_URL', text_to_speech: 'ADAPTER_TTS_URL',
  crm: 'ADAPTER_TOOLS_URL', calendar: 'ADAPTER_TOOLS_URL', messaging: 'ADAPTER_TOOLS_URL',
};

const EARS = 'the offline grammar recogniser answers (names, needs, budgets, visit times, yes/no, requests; other speech is rejected)';
/** What the embedded default really is in the slots where it is more than a simulator (SIM_SPEECH decides what calls speak). */
const embedded = (config: Config, slot: Slot): string | undefined => {
  const tones = config.SIM_SPEECH === 'tones';
  if (slot === 'speech_to_text') return tones ? `calls hear the simulator's tone code (SIM_SPEECH=tones); other speech: ${EARS}` : EARS;
  if (slot === 'text_to_speech') {
    return tones ? "the offline voice speaks the demo's replies (Flite); calls speak the simulator's tone code (SIM_SPEECH=tones)"
      : 'the offline voice speaks (Flite): calls, recordings, simulated callees and the demo\'s replies';
  }
  return undefined;
};

export function slotStatus(config: Config, slot: Slot): SlotStatus {
  const env = config as unknown as Record<string, unknown>;
  const spec: SlotSpec = SLOTS[slot];
  const sel = selectSlot(env, slot);
  const keyNames = sel.provider && spec.providers[sel.provider] ? spec.providers[sel.provider].keys : [...new Set(Object.values(spec.providers).flatMap((p) => p.keys))];
  const ready = Object.entries(spec.providers).filter(([, p]) => p.keys.every((k) => env[k])).map(([name]) => name);
  const base = {
    slot, setting: settingOf(slot) ?? null, provider: sel.provider ?? null, keys: keyNames.map((name) => ({ name, present: Boolean(env[name]) })),
    missing: sel.missing, ready, chosen_by: sel.provider ? (sel.derived ? 'keys' as const : 'setting' as const) : null,
  };
  const grpc = GRPC_URL[slot];
  if (grpc && config[grpc]) return { ...base, mode: 'grpc', note: `served by the adapter server at ${grpc}` };
  if (sel.live && isImplemented(slot, sel.provider!)) {
    return { ...base, mode: 'live', ...(sel.derived ? { note: derivedNote(base.setting!, sel.provider!) } : {}) };
  }
  // in the simulator keys select nothing by themselves (src/providers/catalog.ts): say what would use them
  const unused = !sel.provider && base.setting && ready.length
    ? ` (${ready.join(', ')} ${ready.length === 1 ? 'has its' : 'have their'} keys: set ${base.setting}=${ready.join(' or ')} to use ${ready.length === 1 ? 'it' : 'one'})` : '';
  const note = !sel.provider ? (base.setting ? `${base.setting} is not set: ${embedded(config, slot) ?? 'the simulator answers'}${unused}` : 'no keys set: simulated')
    : sel.missing.length ? `${sel.provider} needs ${sel.missing.join(', ')}` : `${sel.provider} is not available in this build`;
  return { ...base, mode: 'simulated', note };
}

/** "chosen from the keys: STT_PROVIDER is not set and only deepgram's keys are" (start-up says it too) */
const derivedNote = (setting: string, provider: string) => `chosen from the keys: ${setting} is not set and only ${provider}'s keys are`;

export function integrationStatus(config: Config): SlotStatus[] {
  return SLOT_NAMES.map((slot) => slotStatus(config, slot));
}

/** integrationStatus, and each live slot's keys checked by one read against its provider (all slots at once). */
export async function verifiedIntegrationStatus(config: Config): Promise<SlotStatus[]> {
  return Promise.all(integrationStatus(config).map(async (s) => {
    if (s.mode !== 'live' || !s.provider) return s;
    const verification = await verifyProvider(s.provider, config);
    return verification ? { ...s, verification } : s;
  }));
}

/** One line per slot whose provider was chosen from the keys, for the start-up banner. */
export const derivedProviders = (config: Config): string[] =>
  integrationStatus(config).filter((s) => s.chosen_by === 'keys').map((s) => `${s.slot}: ${s.provider} (${derivedNote(s.setting!, s.provider!)})`);

export const isLive = (config: Config, slot: Slot) => slotStatus(config, slot).mode === 'live';
