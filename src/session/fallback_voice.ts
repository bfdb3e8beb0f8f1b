/**
 * The spoken fallback line in the call's own voice. When the dialog fails, the text-to-speech that still works
 * renders it, and the render is kept per voice, so a later failure of that synthesis itself replays it. Only when no
 * render exists and the synthesis is what failed does the last resort play: the line in the offline voice
 * (src/speech), rendered on this machine and kept once made.
 */
import type { TextToSpeechAdapter } from '../adapters/types.js';
import { MulawFramer } from '../media/mulaw_framer.js';
import { offlineMulawFrames } from '../speech/voice/phone_frames.js';
import { DEFAULT_OFFLINE_VOICE } from '../speech/voice/voices.js';

export const FALLBACK_TEXT = "Sorry, I'm having trouble; let me get someone to help you.";
/** the line is short: a synthesis that cannot start it within this is not one to wait for */
const RENDER_DEADLINE_MS = 1500;

const rendered = new WeakMap<TextToSpeechAdapter, Map<string, Uint8Array[]>>();
let lastResort: Promise<Uint8Array[]> | undefined;

export async function fallbackFrames(tts: TextToSpeechAdapter, voice: string, language: string, ttsFailed: boolean): Promise<Uint8Array[]> {
  const key = `${voice}\n${language}`;
  const kept = rendered.get(tts)?.get(key);
  if (kept) return kept;
  if (!ttsFailed) {
    const frames = await render(tts, voice, language).catch(() => undefined);
    if (frames?.length) {
      if (!rendered.has(tts)) rendered.set(tts, new Map());
      rendered.get(tts)!.set(key, frames);
      return frames;
    }
  }
  return lastResortFrames();
}

/** The line in the offline voice; empty (the escalation goes on) if even that cannot render, and tried again next time. */
function lastResortFrames(): Promise<Uint8Array[]> {
  lastResort ??= offlineMulawFrames(FALLBACK_TEXT, DEFAULT_OFFLINE_VOICE);
  return lastResort.catch(() => { lastResort = undefined; return []; });
}

async function render(tts: TextToSpeechAdapter, voice: string, language: string): Promise<Uint8Array[]> {
  await tts.warm?.(); // a cold voice loads before the deadline starts
  const opts = { signal: AbortSignal.timeout(RENDER_DEADLINE_MS), timeoutMs: RENDER_DEADLINE_MS };
  const req = { text: FALLBACK_TEXT, voice, language };
  const chunks = tts.synthesizeMulaw ? tts.synthesizeMulaw(req, opts) : tts.synthesize({ ...req, sampleRateHz: 8000 }, opts);
  const framer = new MulawFramer();
  const frames: Uint8Array[] = [];
  for await (const c of chunks) frames.push(...framer.push(c));
  frames.push(...framer.flush());
  return frames;
}
