/**
 * The Exotel Voicebot applet stream codec (README.md, "Media"): JSON text frames. In:
 * connected, start, media, dtmf, mark, stop. Out: media, mark, clear. Audio is base64 16-bit linear PCM,
 * little-endian, 8 kHz unless start.media_format says otherwise. Keys are snake_case (stream_sid, call_sid,
 * sequence_number, custom_parameters); the camelCase Exotel's own samples use is accepted too, and numbers may be
 * strings. Outbound audio goes in chunks of whole 320-byte blocks of at least 100 ms (smaller chunks distort, and a
 * whole utterance in one message ends calls early): frames are held until 100 ms are there (200 ms when a burst
 * starts), a mark waits for the chunk holding its audio, and a tail is padded with silence to 100 ms.
 *
 * Exotel signs nothing: the wss URL our stream endpoint hands the applet carries the call id and its single-use
 * capability, checked before the upgrade is accepted (403 otherwise).
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { mulawDecode, resample } from '../../audio/index.js';
import { CodecStream, FrameSplitter } from '../codec_stream.js';
import { isObj, parseJsonEvent } from '../json_event.js';
import type { MediaCodec } from '../media_socket.js';
/** outbound chunks: multiples of this many bytes (20 ms at 8 kHz) */
export const EXOTEL_BLOCK_BYTES = 320;
/** hold outbound audio until this long is there, ms */
const CHUNK_MS = 100;
/**
 * The first chunk of a burst (nothing left playing at Exotel) holds this long: the playout stays only ~100 ms ahead
 * of real time, so with 100 ms chunks each would arrive just as the one before ran out, and any jitter is a gap.
 */
const FIRST_CHUNK_MS = 200;
/** a reply's tail: sent (padded) once no frame came for this long, ms (the playout sends one every 20 ms) */
const TAIL_IDLE_MS = 60;

export type ExotelInbound =
  | { event: 'connected' }
  | { event: 'start'; streamSid: string; callSid: string; accountSid: string; customParameters: Record<string, string>; encoding: string; sampleRate: number }
  | { event: 'media'; payload: string }
  | { event: 'dtmf'; digit: string }
  | { event: 'mark'; name: string }
  | { event: 'stop'; reason: string }
  | { event: 'other'; name: string };

export class ExotelProtocolError extends Error { override name = 'ExotelProtocolError'; }

/** the first of these keys that holds a string or number */
const pick = (o: Record<string, unknown>, ...keys: string[]): string | undefined => {
  for (const k of keys) if (typeof o[k] === 'string' || typeof o[k] === 'number') return String(o[k]);
  return undefined;
};

export function parseExotelMessage(raw: string): ExotelInbound {
  const m = parseJsonEvent(raw, (why) => new ExotelProtocolError(why));
  switch (m.event) {
    case 'connected': return { event: 'connected' };
    case 'start': {
      const s = isObj(m.start) ? m.start : {};
      const f = isObj(s.media_format) ? s.media_format : isObj(s.mediaFormat) ? s.mediaFormat : {};
      const cp = isObj(s.custom_parameters) ? s.custom_parameters : isObj(s.customParameters) ? s.customParameters : {};
      const streamSid = pick(s, 'stream_sid', 'streamSid') ?? pick(m, 'stream_sid', 'streamSid');
      const callSid = pick(s, 'call_sid', 'callSid') ?? pick(m, 'call_sid', 'callSid');
      if (!streamSid || !callSid) throw new ExotelProtocolError('start without stream_sid/call_sid');
      return { event: 'start', streamSid, callSid, accountSid: pick(s, 'account_sid', 'accountSid') ?? '',
        customParameters: Object.fromEntries(Object.entries(cp).map(([k, v]) => [k, String(v)])),
        encoding: pick(f, 'encoding') ?? 'audio/x-raw', sampleRate: Number(pick(f, 'sample_rate', 'sampleRate') ?? 8000) };
    }
    case 'media': {
      const payload = isObj(m.media) ? pick(m.media, 'payload') : undefined;
      if (payload === undefined) throw new ExotelProtocolError('media without payload');
      return { event: 'media', payload };
    }
    case 'dtmf': {
      const digit = isObj(m.dtmf) ? pick(m.dtmf, 'digit') : undefined;
      if (digit === undefined) throw new ExotelProtocolError('dtmf without digit');
      return { event: 'dtmf', digit };
    }
    case 'mark': {
      const name = isObj(m.mark) ? pick(m.mark, 'name') : undefined;
      if (name === undefined) throw new ExotelProtocolError('mark without name');
      return { event: 'mark', name };
    }
    case 'stop': return { event: 'stop', reason: (isObj(m.stop) ? pick(m.stop, 'reason') : undefined) ?? '' };
    default: return { event: 'other', name: m.event };
  }
}

const pcmOf = (b64: string): Int16Array => {
  const b = Buffer.from(b64, 'base64');
  const out = new Int16Array(b.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = b.readInt16LE(i * 2);
  return out;
};
const bytesOf = (pcm: Int16Array): Buffer => {
  const b = Buffer.allocUnsafe(pcm.length * 2);
  for (let i = 0; i < pcm.length; i++) b.writeInt16LE(pcm[i], i * 2);
  return b;
};

export const exotelMediaMessage = (streamSid: string, pcm16le: Buffer): string =>
  `{"event":"media","stream_sid":${JSON.stringify(streamSid)},"media":{"payload":"${pcm16le.toString('base64')}"}}`;
export const exotelMarkMessage = (streamSid: string, name: string): string => JSON.stringify({ event: 'mark', stream_sid: streamSid, mark: { name } });
export const exotelClearMessage = (streamSid: string): string => JSON.stringify({ event: 'clear', stream_sid: streamSid });

/** Our side of one Exotel stream. */
export class ExotelStream extends CodecStream<ExotelInbound> {
  readonly #split = new FrameSplitter();
  /** 8 kHz PCM of whole frames not sent yet, and the marks that follow it */
  #held: Int16Array[] = [];
  #heldSamples = 0;
  #marks: string[] = [];
  #timer?: NodeJS.Timeout;
  /** when what we sent has played out at Exotel, by our count (performance.now() ms) */
  #playsUntil = 0;

  constructor(ws: WebSocket, readonly streamSid: string, carrierCallId: string, parameters: Record<string, string>, readonly sampleRate: number,
    socket?: Pick<Duplex, 'cork' | 'uncork'>) {
    super(ws, carrierCallId, parameters, socket);
  }

  deliver(m: ExotelInbound): void {
    switch (m.event) {
      case 'media': {
        let pcm = pcmOf(m.payload);
        if (this.sampleRate !== 8000) pcm = resample(pcm, this.sampleRate, 8000);
        this.#split.push(pcm, (frame) => this.input({ kind: 'audio', pcm: frame }));
        break;
      }
      case 'mark': this.input({ kind: 'mark', name: m.name }); break;
      case 'dtmf': this.input({ kind: 'dtmf', digit: m.digit }); break;
      case 'stop': this.end('stop'); break;
      default: break;
    }
  }

  sendMedia(frame: Uint8Array): void {
    this.#held.push(mulawDecode(frame));
    this.#heldSamples += frame.length;
    const starting = this.#playsUntil <= performance.now();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#heldSamples >= (8000 * (starting ? FIRST_CHUNK_MS : CHUNK_MS)) / 1000) { this.#sendChunk(); return; }
    this.#timer = setTimeout(() => { this.#timer = undefined; this.#sendChunk(); }, TAIL_IDLE_MS);
    this.#timer.unref();
  }

  sendMark(name: string): void {
    if (this.#heldSamples) this.#marks.push(name);
    else this.send(exotelMarkMessage(this.streamSid, name));
  }

  sendClear(): void {
    this.#drop();
    this.send(exotelClearMessage(this.streamSid));
  }

  protected override onEnd(): void { this.#drop(); }

  #drop(): void {
    this.#playsUntil = 0;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#held = [];
    this.#heldSamples = 0;
    this.#marks = [];
  }

  #sendChunk(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!this.#heldSamples) return;
    const min = (8000 * CHUNK_MS) / 1000;
    let pcm: Int16Array = new Int16Array(Math.max(min, this.#heldSamples)); // zero-padded to 100 ms
    let o = 0;
    for (const f of this.#held) { pcm.set(f, o); o += f.length; }
    if (this.sampleRate !== 8000) pcm = resample(pcm, 8000, this.sampleRate);
    let bytes = bytesOf(pcm);
    bytes = bytes.subarray(0, bytes.length - (bytes.length % EXOTEL_BLOCK_BYTES));
    const now = performance.now();
    this.#playsUntil = Math.max(now, this.#playsUntil) + pcm.length / (this.sampleRate / 1000);
    const marks = this.#marks;
    this.#held = []; this.#heldSamples = 0; this.#marks = [];
    this.send(exotelMediaMessage(this.streamSid, bytes));
    for (const name of marks) this.send(exotelMarkMessage(this.streamSid, name));
  }
}

/** The sample rates a Voicebot stream may announce (`?sample-rate=` on the applet's URL). */
const SAMPLE_RATES = [8000, 16000, 24000];

export const exotelCodec: MediaCodec<ExotelInbound> = {
  name: 'exotel',
  parse: parseExotelMessage,
  // the URL our stream hook handed the applet names the call and carries its capability (Exotel signs nothing)
  claimOfUpgrade: (url) => ({ callId: url.searchParams.get('call_id') ?? '', token: url.searchParams.get('token') ?? undefined }),
  startOf: (m) => {
    if (m.event !== 'start') return undefined;
    if (!SAMPLE_RATES.includes(m.sampleRate)) return { refuse: { code: 1003, reason: 'unsupported sample rate' } };
    return { claim: { callId: '' } }; // the upgrade's claim stands
  },
  open: (m, { ws, socket, callId }) => {
    const s = m as Extract<ExotelInbound, { event: 'start' }>;
    return new ExotelStream(ws, s.streamSid, s.callSid, { ...s.customParameters, call_id: callId }, s.sampleRate, socket);
  },
};
