/**
 * Piscina task module of the speech pool (src/speech/pool.ts): the offline voice renders a sentence, the offline
 * ears recognise one caller turn against its grammar. Engines load on first use in each thread.
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { ListenHint } from '../src/adapters/types.js';
import type { OfflineVoice } from '../src/speech/voice/voices.js';
import { renderAt } from '../src/speech/voice/render.js';
import { loadFlite } from '../src/speech/voice/flite.js';
import { recognise } from '../src/speech/ears/recogniser.js';
import { dropLive, endLive, feedLive, startLive, type LiveHeard } from '../src/speech/ears/live.js';

export type SpeechTask =
  | { kind: 'speak'; text: string; voice: OfflineVoice; sampleRateHz: number }
  | { kind: 'hear'; pcm: ArrayBuffer; sampleRateHz: number; hint?: ListenHint }
  /** a live turn (src/speech/ears/live.ts): 8 kHz audio as it comes, on the ears' thread */
  | { kind: 'listen'; op: 'start' | 'feed' | 'end' | 'drop'; id: string; pcm: ArrayBuffer; hint?: ListenHint; noisyLine?: boolean; quietBefore?: ArrayBuffer };

export type SpeechResult =
  | { kind: 'speak'; pcm: ArrayBuffer; cpuMs: number }
  /** `noisyLine`: the turn's line was noisy (the stream's next live turn is suppressed as such) */
  | { kind: 'hear'; text: string; path: string; rejected: boolean; noisyLine: boolean; cpuMs: number }
  /** `live` false: the turn is not live on this thread (no decoder was free, or it was lost): recognise it whole */
  | { kind: 'listen'; live: boolean; heard?: LiveHeard; cpuMs: number };


export default async function speech(task: SpeechTask): Promise<SpeechResult> {
  const c0 = process.cpuUsage();
  const cpuMs = () => { const c = process.cpuUsage(c0); return (c.user + c.system) / 1000; };
  if (task.kind === 'speak') {
    await loadFlite();
    const pcm = renderAt(task.text, task.voice, task.sampleRateHz);
    const result: SpeechResult = { kind: 'speak', pcm: pcm.buffer as ArrayBuffer, cpuMs: cpuMs() };
    return move({ [transferableSymbol]: [result.pcm], [valueSymbol]: result } as never) as unknown as SpeechResult;
  }
  if (task.kind === 'listen') {
    const pcm = new Int16Array(task.pcm);
    switch (task.op) {
      case 'start': return { kind: 'listen', live: await startLive(task.id, task.hint, pcm, task.noisyLine, task.quietBefore && new Int16Array(task.quietBefore)), cpuMs: cpuMs() };
      case 'feed': return { kind: 'listen', live: feedLive(task.id, pcm), cpuMs: cpuMs() };
      case 'end': { const heard = endLive(task.id, pcm); return { kind: 'listen', live: !!heard, heard, cpuMs: cpuMs() }; }
      case 'drop': dropLive(task.id); return { kind: 'listen', live: false, cpuMs: cpuMs() };
    }
  }
  const heard = await recognise(new Int16Array(task.pcm), task.sampleRateHz, task.hint);
  return { kind: 'hear', ...heard, cpuMs: cpuMs() };
}
