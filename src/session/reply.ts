/**
 * One agent reply as a stream: dialog text -> sentence chunker -> text-to-speech -> 20 ms mu-law frames into the
 * playout. The dialog keeps streaming while sentences are synthesised (two loops joined by a queue), so the caller
 * hears the first sentence while the model still writes the rest. One AbortSignal (barge-in, hang-up) stops the
 * model stream, the synthesis and the queueing at once; nothing is queued after it fires.
 * An adapter that fails or times out is replaced by the spoken fallback (./fallback_voice.ts) and an escalation.
 * Records where each sentence's audio sits, so a cut reply keeps only what was heard.
 */
import { pushable } from 'it-pushable';
import { AdapterError, type DialogAdapter, type DialogEvent, type DialogTurnRequest, type ListenHint, type TextToSpeechAdapter, type ToolOutcome } from '../adapters/types.js';
import { FRAME_MS } from '../audio/index.js';
import { MulawFramer } from '../media/mulaw_framer.js';
import { SentenceChunker } from './chunker.js';
import type { ReplyEnding } from './events.js';

import { FALLBACK_TEXT, fallbackFrames } from './fallback_voice.js';

/** keys a dialog may press in one event (a remote dialog's malformed ones are dropped) */
const AGENT_KEYS = /^[0-9*#]{1,32}$/;

export { FALLBACK_TEXT };

export interface ReplyPorts {
  dialog: DialogAdapter;
  tts: TextToSpeechAdapter;
  voice: string;
  language: string;
  /** 20 ms mu-law frames of this reply, in order */
  enqueue(frames: Uint8Array[]): void;
  entity(key: string, value: string | number): void;
  /** runs a tool, records it on the call, and gives its outcome (a model continues with it) */
  tool(tool: string, args: Record<string, string>): Promise<ToolOutcome>;
  /** what the agent now waits to hear (the dialog's listen hint): steers a grammar recogniser for the next turn */
  listen?(hint: ListenHint): void;
  /** the agent presses keys on the line (a phone menu at the other end) */
  keys?(digits: string): void;
  /** each sentence's words as its audio is made (the simulated carrier's side channel to its callee) */
  said?(text: string): void;
  /** wall clock (ms) for the latency split */
  now(): number;
  /** hold every sentence until the model finished the reply (sentence streaming off: only to measure it) */
  wholeReply?: boolean;
}

/** What the reply says: a dialog turn, or fixed text (the disclosure, a voicemail message). */
export type ReplySource = { dialog: DialogTurnRequest } | { text: string };

export interface SpokenSentence { text: string; startMs: number; endMs: number }

export interface ReplyOutcome {
  /** sentences with the audio span they occupy in the reply (ms from its first frame) */
  spoken: SpokenSentence[];
  ending?: ReplyEnding;
  aborted: boolean;
  fallback?: { adapter: string; code: string };
  /** wall ms: first text from the dialog, first whole sentence, first audio from the synthesis */
  firstTextAt?: number;
  firstSentenceAt?: number;
  firstAudioAt?: number;
}

/**
 * Runs the reply into `out`, which the caller may read at any time (a reply cut mid-sentence keeps what was
 * queued of it); resolves with it once nothing more will be queued.
 */
export async function runReply(ports: ReplyPorts, source: ReplySource, signal: AbortSignal,
  out: ReplyOutcome = { spoken: [], aborted: false }): Promise<ReplyOutcome> {
  // the caller's signal, or a failing synthesis stopping the dialog it no longer speaks for
  const inner = new AbortController();
  const stop = () => inner.abort();
  signal.addEventListener('abort', stop, { once: true });
  let framesQueued = 0;
  const queue = (frames: Uint8Array[]) => {
    if (!frames.length || signal.aborted) return;
    ports.enqueue(frames);
    framesQueued += frames.length;
  };
  // not a Readable: its iterator adds a nextTick hop and a stream per reply on the turn's path (bench/README.md)
  const sentences = pushable<string>({ objectMode: true });
  const produce = async () => {
    const chunker = new SentenceChunker();
    const held: string[] = [];
    const say = (s: string) => { out.firstSentenceAt ??= ports.now(); if (ports.wholeReply) held.push(s); else sentences.push(s); };
    let last = '';
    for await (const ev of eventsOf(ports, source, inner.signal)) {
      if (inner.signal.aborted) break;
      if (ev.type === 'entity') ports.entity(ev.key, ev.value);
      else if (ev.type === 'tool_call') await ports.tool(ev.tool, ev.arguments);
      else if (ev.type === 'listen') ports.listen?.(ev.hint);
      else if (ev.type === 'keys') { if (AGENT_KEYS.test(ev.digits)) ports.keys?.(ev.digits); }
      else if (ev.type === 'escalate' || ev.type === 'end_call') out.ending = { kind: ev.type, reason: ev.reason };
      else if (ev.type === 'text' && ev.text) {
        out.firstTextAt ??= ports.now();
        // a producer that yields whole sentences ("Hi." then "How are you?") still needs the space between them
        const text = /[.!?…।॥]$/.test(last) && !/^\s/.test(ev.text) ? ` ${ev.text}` : ev.text;
        last = text;
        for (const s of chunker.push(text)) say(s);
      }
    }
    const rest = chunker.flush();
    if (rest && !inner.signal.aborted) say(rest);
    if (!inner.signal.aborted) for (const s of held) sentences.push(s);
  };
  const speak = async () => {
    for await (const text of sentences) {
      if (signal.aborted) break;
      const sentence: SpokenSentence = { text, startMs: framesQueued * FRAME_MS, endMs: framesQueued * FRAME_MS };
      out.spoken.push(sentence);
      ports.said?.(text);
      const framer = new MulawFramer();
      for await (const chunk of synthesis(ports, text, inner.signal)) {
        if (signal.aborted) break;
        out.firstAudioAt ??= ports.now();
        queue(framer.push(chunk));
        sentence.endMs = framesQueued * FRAME_MS;
      }
      queue(framer.flush());
      sentence.endMs = framesQueued * FRAME_MS;
    }
  };
  try {
    const speaking = speak().catch((err: unknown) => { inner.abort(); throw err; });
    speaking.catch(() => {}); // awaited below, after the dialog: never an unhandled rejection meanwhile
    try { await produce(); sentences.end(); } catch (err) { sentences.end(err as Error); }
    await speaking;
  } catch (err) {
    if (signal.aborted || (err instanceof AdapterError && err.code === 'canceled')) { out.aborted = true; return out; }
    const adapter = err instanceof AdapterError ? err.adapter : 'pipeline';
    const code = err instanceof AdapterError ? err.code : 'failed';
    out.fallback = { adapter, code };
    dropSilent(out.spoken); // a sentence whose synthesis failed before any audio was never said
    const frames = await fallbackFrames(ports.tts, ports.voice, ports.language, adapter === 'tts');
    const startMs = framesQueued * FRAME_MS;
    out.firstAudioAt ??= ports.now();
    if (!signal.aborted) ports.said?.(FALLBACK_TEXT);
    queue(frames);
    out.spoken.push({ text: FALLBACK_TEXT, startMs, endMs: framesQueued * FRAME_MS });
    out.ending = { kind: 'escalate', reason: `adapter_failure:${adapter}:${code}` };
  } finally {
    signal.removeEventListener('abort', stop);
  }
  out.aborted ||= signal.aborted;
  return out;
}

function dropSilent(spoken: SpokenSentence[]): void {
  for (let i = spoken.length - 1; i >= 0; i--) if (spoken[i].endMs === spoken[i].startMs) spoken.splice(i, 1);
}

/** Telephone audio straight from a provider that renders mu-law itself, else PCM to be encoded. */
function synthesis(ports: ReplyPorts, text: string, signal: AbortSignal): AsyncIterable<Int16Array | Uint8Array> {
  const req = { text, voice: ports.voice, language: ports.language };
  return ports.tts.synthesizeMulaw ? ports.tts.synthesizeMulaw(req, { signal }) : ports.tts.synthesize({ ...req, sampleRateHz: 8000 }, { signal });
}

function eventsOf(ports: ReplyPorts, source: ReplySource, signal: AbortSignal): AsyncIterable<DialogEvent> {
  if ('dialog' in source) return ports.dialog.turn(source.dialog, { signal, runTool: ports.tool });
  return (async function* () { yield { type: 'text', text: source.text } as const; })();
}

/** The part of a reply the caller heard: whole sentences before playedMs, and the heard share of the one cut. */
export function heardText(spoken: SpokenSentence[], playedMs: number): string {
  const parts: string[] = [];
  for (const s of spoken) {
    if (s.endMs === s.startMs) continue; // no audio (yet): not heard
    if (s.endMs <= playedMs) { parts.push(s.text); continue; }
    if (s.startMs >= playedMs) break;
    const words = s.text.split(/\s+/);
    const keep = Math.floor((words.length * (playedMs - s.startMs)) / Math.max(1, s.endMs - s.startMs));
    if (keep > 0) parts.push(`${words.slice(0, keep).join(' ')}…`);
    break;
  }
  return parts.join(' ');
}
