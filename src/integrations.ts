/**
 * What GET /v1/integrations reports, per provider slot: which provider the settings select, whether it is live
 * (a real implementation is wired and every key it needs is set), behind a gRPC adapter server, or the
 * simulator, and which keys are present or missing. Key values never leave this module.
 */
import type { Config } from './config.js';
import { SLOTS, SLOT_NAMES, selectSlot, settingOf, type Slot, type SlotSpec } from './providers/catalog.js';
import { isImplemented } from './providers/index.js';

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
  /** why the slot is not live, in a sentence (absent when it is) */
  note?: string;
}

const GRPC_URL: Partial<Record<Slot, keyof Config>> = {
  carrier: 'ADAPTER_CARRIER_URL', speech_to_text: 'ADAPTER_STT_URL', dialog_model: 'ADAPTER_DIALOG_URL', text_to_speech: 'ADAPTER_TTS_URL',
  crm: 'ADAPTER_TOOLS_URL', calendar: 'ADAPTER_TOOLS_URL', messaging: 'ADAPTER_TOOLS_URL',
};

/** What the embedded default really is in the slots where it is more than a simulator. */
const EMBEDDED: Partial<Record<Slot, string>> = {
  speech_to_text: 'the offline grammar recogniser answers (names, needs, budgets, visit times, yes/no, requests; other speech is rejected)',
  text_to_speech: 'the offline voice speaks (Flite; simulated calls still use the simulator\'s tone code)',
};

export function slotStatus(config: Config, slot: Slot): SlotStatus {
  const env = config as unknown as Record<string, unknown>;
  const spec: SlotSpec = SLOTS[slot];
  const sel = selectSlot(env, slot);
  const keyNames = sel.provider && spec.providers[sel.provider] ? spec.providers[sel.provider].keys : [...new Set(Object.values(spec.providers).flatMap((p) => p.keys))];
  const ready = Object.entries(spec.providers).filter(([, p]) => p.keys.every((k) => env[k])).map(([name]) => name);
  const base = {
    slot, setting: settingOf(slot) ?? null, provider: sel.provider ?? null, keys: keyNames.map((name) => ({ name, present: Boolean(env[name]) })),
    missing: sel.missing, ready,
  };
  const grpc = GRPC_URL[slot];
  if (grpc && config[grpc]) return { ...base, mode: 'grpc', note: `served by the adapter server at ${grpc}` };
  if (sel.live && isImplemented(slot, sel.provider!)) return { ...base, mode: 'live' };
  const note = !sel.provider ? (base.setting ? `${base.setting} is not set: ${EMBEDDED[slot] ?? 'the simulator answers'}` : 'no keys set: simulated')
    : sel.missing.length ? `${sel.provider} needs ${sel.missing.join(', ')}` : `${sel.provider} is not available in this build`;
  return { ...base, mode: 'simulated', note };
}

export function integrationStatus(config: Config): SlotStatus[] {
  return SLOT_NAMES.map((slot) => slotStatus(config, slot));
}

export const isLive = (config: Config, slot: Slot) => slotStatus(config, slot).mode === 'live';
