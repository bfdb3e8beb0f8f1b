/**
 * A caller waiting on hold for an operator, from Node: a browser call (the caller's leg written from the protocol,
 * so everything the caller hears is kept), put on hold in the handoff queue by a transfer to a person with no
 * number, and what the call's recording holds per channel and time span.
 */
import { readFileSync } from 'node:fs';
import { readWav, WAV_HEADER_BYTES } from '../../../src/audio/index.js';
import { api } from '../../helpers/server.js';
import { waitFor } from '../../providers/live_env.js';
import { FIXTURE_WAV } from '../../browser/helpers/browser.js';
import { openLeg, type Leg } from '../../carriers/helpers/browser_leg.js';

export const speech = readWav(readFileSync(FIXTURE_WAV));
/** the fixture's first utterance (0.04-6.46 s) */
export const utterance = speech.pcm.subarray(0, Math.round(speech.sampleRateHz * 6.5));

export const isItem = (m: Record<string, any>, type: string, speaker?: string) =>
  m.event === 'item' && m.item.type === type && (speaker === undefined || m.item.speaker === speaker);

export interface HeldCall { id: string; conv: string; caller: Leg }

/** A browser call of the token's tenant, its caller on the line (silence, or `say`), waiting in the handoff queue. */
export async function callerOnHold(base: string, token: string, db: { query: Function }): Promise<HeldCall> {
  const r = await api(base, 'POST', '/browser-calls', { token, body: {} });
  if (r.status !== 201) throw new Error(`browser call: ${r.status} ${JSON.stringify(r.body)}`);
  const id = r.body.call.id as string;
  const caller = await openLeg(r.body.media_url);
  caller.send({ event: 'start', call_id: id, token: r.body.token, media_format: { encoding: 'pcm16', sample_rate: 16_000 } });
  await caller.next((m) => m.event === 'started', 'started');
  caller.microphone(16_000, 20);
  // the disclosure has played: the caller then asks for a person (a transfer with no number: the queue)
  await caller.next((m) => isItem(m, 'transcript', 'agent'), 'the disclosure');
  const tr = await api(base, 'POST', `/calls/${id}/transfer`, { token, body: {} });
  if (tr.status >= 300) throw new Error(`transfer: ${tr.status} ${JSON.stringify(tr.body)}`);
  const conv = tr.body.conversation_id as string;
  await waitFor('the hold message', async () => {
    const rows = (await db.query('SELECT text FROM conversation_messages WHERE conversation_id = $1', [conv])) as { rows: Array<{ text: string }> };
    return rows.rows.some((m) => /stay on the line/.test(m.text));
  });
  return { id, conv, caller };
}

/** PCM16 of everything the caller's leg received from `fromIndex` of its messages on. */
export function heardBy(leg: Leg, fromIndex = 0): Int16Array {
  const b = Buffer.concat(leg.messages.slice(fromIndex).filter((m) => m.event === 'media').map((m) => Buffer.from(m.payload, 'base64')));
  return new Int16Array(b.buffer, b.byteOffset, b.length >> 1);
}

/** Root mean square of `pcm`. */
export const rms = (pcm: Int16Array): number => {
  let s = 0;
  for (const v of pcm) s += v * v;
  return Math.sqrt(s / Math.max(1, pcm.length));
};

/**
 * Speech-like: loud 20 ms frames and quiet ones both (speech has pauses and syllables; a tone or noise is even),
 * and enough of it.
 */
export function speechLike(pcm: Int16Array, rateHz: number): { loud: number; quiet: number; ok: boolean } {
  const n = (rateHz / 1000) * 20;
  let loud = 0, quiet = 0;
  for (let i = 0; i + n <= pcm.length; i += n) {
    const r = rms(pcm.subarray(i, i + n));
    if (r > 800) loud++; else if (r < 200) quiet++;
  }
  return { loud, quiet, ok: loud >= 25 && quiet >= 5 };
}

/** The two channels of a call recording (8 kHz PCM16 stereo: 1 caller, 2 agent and operator). */
export function recordingChannels(wav: Buffer): { caller: Int16Array; ours: Int16Array } {
  const data = wav.subarray(WAV_HEADER_BYTES);
  const frames = data.length >> 2;
  const caller = new Int16Array(frames), ours = new Int16Array(frames);
  for (let i = 0; i < frames; i++) { caller[i] = data.readInt16LE(4 * i); ours[i] = data.readInt16LE(4 * i + 2); }
  return { caller, ours };
}

/** Samples of `pcm` (8 kHz) between `fromMs` and `toMs`. */
export const span = (pcm: Int16Array, fromMs: number, toMs: number) => pcm.subarray(Math.floor(fromMs * 8), Math.floor(toMs * 8));
