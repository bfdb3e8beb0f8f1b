/**
 * One agent reply: dialog turn -> text sentences -> TTS -> 20 ms mu-law frames into the playout. Cancellable
 * (barge-in, hang-up) through the AbortSignal; an adapter that fails or times out is replaced by the spoken
 * fallback (rendered in-process, so it plays even when the TTS adapter is the one failing) and an escalation.
 * Records where each sentence's audio starts and ends so a cut reply keeps only what was heard.
 */
import { AdapterError, type DialogAdapter, type DialogTurnRequest, type TextToSpeechAdapter } from '../adapters/types.js';
import { simVoiceMulawFrames } from '../simvoice/index.js';
import { MulawFramer } from './mulaw_framer.js';

export const FALLBACK_TEXT = "Sorry, I'm having trouble; let me get someone to help you.";
let fallbackFrames: Uint8Array[] | undefined;

export interface ReplyPorts {
  dialog: DialogAdapter;
  tts: TextToSpeechAdapter;
  voice: string;
  language: string;
  enqueue(frames: Uint8Array[]): void;
  entity(key: string, value: string | number): void;
  tool(tool: string, args: Record<string, string>): Promise<void>;
}

export interface ReplyOutcome {
  /** sentences with the audio span they occupy in the reply (ms from its first frame) */
  spoken: Array<{ text: string; startMs: number; endMs: number }>;
  ending?: { kind: 'escalate' | 'end_call'; reason: string };
  aborted: boolean;
  fallback?: { adapter: string; code: string };
  /** wall ms: first text from the dialog, first audio chunk from the TTS */
  firstTextAt?: number;
  firstAudioAt?: number;
}

const FRAME_MS = 20;

export async function runReply(ports: ReplyPorts, req: DialogTurnRequest, signal: AbortSignal): Promise<ReplyOutcome> {
  const out: ReplyOutcome = { spoken: [], aborted: false };
  let framesQueued = 0;
  const queue = (frames: Uint8Array[]) => { if (frames.length && !signal.aborted) { ports.enqueue(frames); framesQueued += frames.length; } };
  try {
    for await (const ev of ports.dialog.turn(req, { signal })) {
      if (signal.aborted) break;
      if (ev.type === 'entity') ports.entity(ev.key, ev.value);
      else if (ev.type === 'tool_call') await ports.tool(ev.tool, ev.arguments);
      else if (ev.type === 'escalate' || ev.type === 'end_call') out.ending = { kind: ev.type, reason: ev.reason };
      else if (ev.type === 'text' && ev.text.trim()) {
        out.firstTextAt ??= performance.now();
        const startMs = framesQueued * FRAME_MS;
        const framer = new MulawFramer();
        for await (const pcm of ports.tts.synthesize({ text: ev.text, voice: ports.voice, language: ports.language, sampleRateHz: 8000 }, { signal })) {
          if (signal.aborted) break;
          out.firstAudioAt ??= performance.now();
          queue(framer.push(pcm));
        }
        queue(framer.flush());
        out.spoken.push({ text: ev.text, startMs, endMs: framesQueued * FRAME_MS });
      }
    }
  } catch (err) {
    if (signal.aborted || (err instanceof AdapterError && err.code === 'canceled')) { out.aborted = true; return out; }
    const adapter = err instanceof AdapterError ? err.adapter : 'pipeline';
    const code = err instanceof AdapterError ? err.code : 'failed';
    out.fallback = { adapter, code };
    fallbackFrames ??= simVoiceMulawFrames(FALLBACK_TEXT);
    const startMs = framesQueued * FRAME_MS;
    out.firstAudioAt ??= performance.now();
    queue(fallbackFrames);
    out.spoken.push({ text: FALLBACK_TEXT, startMs, endMs: framesQueued * FRAME_MS });
    out.ending = { kind: 'escalate', reason: `adapter_failure:${adapter}:${code}` };
  }
  out.aborted ||= signal.aborted;
  return out;
}

/** The part of a reply the caller heard: whole sentences before playedMs, and the heard share of the one cut. */
export function heardText(spoken: ReplyOutcome['spoken'], playedMs: number): string {
  const parts: string[] = [];
  for (const s of spoken) {
    if (s.endMs <= playedMs) { parts.push(s.text); continue; }
    if (s.startMs >= playedMs) break;
    const words = s.text.split(/\s+/);
    const keep = Math.floor((words.length * (playedMs - s.startMs)) / Math.max(1, s.endMs - s.startMs));
    if (keep > 0) parts.push(`${words.slice(0, keep).join(' ')}…`);
    break;
  }
  return parts.join(' ');
}
