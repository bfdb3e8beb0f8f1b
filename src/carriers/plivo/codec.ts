/**
 * The Plivo Audio Streaming codec, bidirectional (README.md, "Media"): JSON text frames. In: start, media, dtmf,
 * playedStream (older name: played), clearedAudio; a `stop` is tolerated, though the end is the socket closing.
 * Out: playAudio, checkpoint, clearAudio. Audio is base64 mu-law 8 kHz both ways; sequenceNumber and chunk are
 * numbers. A checkpoint comes back as playedStream once the audio before it has played; after a clearAudio the
 * cleared checkpoints never do, which the playout's epochs already expect.
 *
 * The call proves itself with its capability in start.extra_headers (set by our signed answer XML): Plivo allows
 * only [A-Za-z0-9] there, so the call id and token travel hex-encoded.
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { mulawDecode } from '../../audio/index.js';
import { CodecStream, FrameSplitter } from '../codec_stream.js';
import { isObj, parseJsonEvent } from '../json_event.js';
import type { MediaCodec } from '../media_socket.js';

export const PLIVO_CONTENT_TYPE = 'audio/x-mulaw;rate=8000';

export type PlivoInbound =
  | { event: 'start'; callId: string; streamId: string; extraHeaders: Record<string, string>; encoding: string; sampleRate: number }
  | { event: 'media'; streamId?: string; track: string; payload: string }
  | { event: 'dtmf'; digit: string }
  | { event: 'playedStream'; name: string }
  | { event: 'clearedAudio' }
  | { event: 'stop' }
  | { event: 'other'; name: string };

export class PlivoProtocolError extends Error { override name = 'PlivoProtocolError'; }

const text = (o: Record<string, unknown>, k: string): string => {
  const v = o[k];
  if (typeof v !== 'string' && typeof v !== 'number') throw new PlivoProtocolError(`${k} missing`);
  return String(v);
};

/** "k=v;k2=v2" as in Plivo's examples, or "k=v,k2=v2" as written in the XML attribute. */
export function parseExtraHeaders(s: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof s !== 'string') return out;
  for (const part of s.split(/[;,]/)) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/** Parses one text frame tolerantly (string or number fields, unknown keys); throws on what is not Plivo's. */
export function parsePlivoMessage(raw: string): PlivoInbound {
  const m = parseJsonEvent(raw, (why) => new PlivoProtocolError(why));
  switch (m.event) {
    case 'start': {
      const s = m.start;
      if (!isObj(s)) throw new PlivoProtocolError('start without start');
      const f = isObj(s.mediaFormat) ? s.mediaFormat : {};
      return { event: 'start', callId: text(s, 'callId'), streamId: text(s, 'streamId'), extraHeaders: parseExtraHeaders(m.extra_headers ?? s.extra_headers),
        encoding: String(f.encoding ?? 'audio/x-mulaw'), sampleRate: Number(f.sampleRate ?? 8000) };
    }
    case 'media': {
      if (!isObj(m.media)) throw new PlivoProtocolError('media without media');
      return { event: 'media', track: String(m.media.track ?? 'inbound'), payload: text(m.media, 'payload') };
    }
    case 'dtmf': {
      if (!isObj(m.dtmf)) throw new PlivoProtocolError('dtmf without dtmf');
      return { event: 'dtmf', digit: text(m.dtmf, 'digit') };
    }
    case 'playedStream': case 'played': return { event: 'playedStream', name: text(m, 'name') };
    case 'clearedAudio': return { event: 'clearedAudio' };
    case 'stop': return { event: 'stop' };
    default: return { event: 'other', name: m.event };
  }
}

export const playAudioMessage = (mulaw: Uint8Array): string =>
  `{"event":"playAudio","media":{"contentType":"audio/x-mulaw","sampleRate":8000,"payload":"${Buffer.from(mulaw.buffer, mulaw.byteOffset, mulaw.byteLength).toString('base64')}"}}`;
export const checkpointMessage = (streamId: string, name: string): string => JSON.stringify({ event: 'checkpoint', streamId, name });
export const clearAudioMessage = (streamId: string): string => JSON.stringify({ event: 'clearAudio', streamId });
/** keys sent as Plivo's own DTMF (out of band): 0-9, *, #, A-D, and w for a half-second wait */
export const sendDtmfMessage = (digits: string): string => JSON.stringify({ event: 'sendDTMF', dtmf: digits });

/** Our side of one Plivo stream. The frames of one playout tick go out as one playAudio, then its checkpoint. */
export class PlivoStream extends CodecStream<PlivoInbound> {
  readonly #split = new FrameSplitter();
  #held: Uint8Array[] = [];
  #inBatch = false;

  constructor(ws: WebSocket, readonly streamId: string, carrierCallId: string, parameters: Record<string, string>, socket?: Pick<Duplex, 'cork' | 'uncork'>) {
    super(ws, carrierCallId, parameters, socket);
  }

  deliver(m: PlivoInbound): void {
    switch (m.event) {
      case 'media':
        if (m.track !== 'inbound') return;
        this.#split.push(mulawDecode(Buffer.from(m.payload, 'base64')), (pcm) => this.input({ kind: 'audio', pcm }));
        break;
      case 'playedStream': this.input({ kind: 'mark', name: m.name }); break;
      case 'dtmf': this.input({ kind: 'dtmf', digit: m.digit }); break;
      case 'stop': this.end('stop'); break;
      default: break; // clearedAudio: the playout counted the cleared audio when it cleared
    }
  }

  sendMedia(frame: Uint8Array): void {
    this.#held.push(frame);
    if (!this.#inBatch) this.flush();
  }

  sendMark(name: string): void { this.flush(); this.send(checkpointMessage(this.streamId, name)); }
  sendDigits(digits: string): void { this.flush(); this.send(sendDtmfMessage(digits)); }
  sendClear(): void { this.#held = []; this.send(clearAudioMessage(this.streamId)); }

  override batch(send: () => void): void {
    this.#inBatch = true;
    try { super.batch(send); } finally { this.#inBatch = false; }
  }

  protected override flush(): void {
    if (!this.#held.length) return;
    const bytes = Buffer.concat(this.#held);
    this.#held = [];
    this.send(playAudioMessage(bytes));
  }
}

/** Plivo's extraHeaders take only [A-Za-z0-9]: our values travel as hex. */
export const hexOf = (s: string): string => Buffer.from(s, 'utf8').toString('hex');
const fromHex = (s: string | undefined): string => (s && /^(?:[0-9a-f]{2})+$/i.test(s) ? Buffer.from(s, 'hex').toString('utf8') : '');

export const plivoCodec: MediaCodec<PlivoInbound> = {
  name: 'plivo',
  parse: parsePlivoMessage,
  startOf: (m) => {
    if (m.event !== 'start') return undefined;
    if (!m.encoding.startsWith('audio/x-mulaw')) return { refuse: { code: 1003, reason: 'only audio/x-mulaw streams' } };
    return { claim: { callId: fromHex(m.extraHeaders.callid), token: fromHex(m.extraHeaders.token) } };
  },
  open: (m, { ws, socket, callId }) => {
    const s = m as Extract<PlivoInbound, { event: 'start' }>;
    return new PlivoStream(ws, s.streamId, s.callId, { call_id: callId }, socket);
  },
};
