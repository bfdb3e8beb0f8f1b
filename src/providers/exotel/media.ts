/**
 * Exotel's Voicebot applet stream (provider_protocols.md §1.3.3, carrier_protocols.md §5): JSON text frames. In:
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
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { mulawDecode, resample } from '../../audio/index.js';
import type { Logger } from '../../log.js';
import { refuseUpgrade } from '../../media/refuse.js';
import type { LiveCarrierContext } from '../carrier.js';
import { CodecStream, FrameSplitter, runMediaSocket } from '../../media/codec_stream.js';
import { isObj, parseJsonEvent } from '../../media/json_event.js';

const START_TIMEOUT_MS = 5000;
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
export class ExotelStream extends CodecStream {
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

/**
 * The media socket's upgrade handler: the URL must carry call_id and the call's capability (token), redeemed
 * here, once. closeAll() ends every socket still open (shutdown).
 */
export function exotelUpgradeHandler(ctx: Pick<LiveCarrierContext, 'capabilities' | 'onStream'>, log: Logger, startTimeoutMs = START_TIMEOUT_MS) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const handler = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    const callId = q.get('call_id') ?? '';
    if (!ctx.capabilities.redeem(callId, q.get('token') ?? undefined)) {
      log.warn({ call_id: callId.slice(0, 64) }, 'exotel media refused: no valid capability for the call');
      refuseUpgrade(socket, 'not a valid stream URL for this call', 403);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, socket, callId));
  };
  const accept = (ws: WebSocket, socket: Duplex, callId: string) => runMediaSocket<ExotelInbound>(ws, {
    name: 'exotel',
    parse: parseExotelMessage,
    start(m) {
      if (m.event !== 'start') return undefined;
      if (![8000, 16000, 24000].includes(m.sampleRate)) { ws.close(1003, 'unsupported sample rate'); return undefined; }
      const s = new ExotelStream(ws, m.streamSid, m.callSid, { ...m.customParameters, call_id: callId }, m.sampleRate, socket);
      if (ctx.onStream(callId, s)) return s;
      ws.close(1008, 'unknown call');
      return undefined;
    },
  }, log, startTimeoutMs);
  return Object.assign(handler, { closeAll: () => { for (const ws of wss.clients) ws.close(1001, 'server shutting down'); } });
}
