/**
 * The browser media codec: the protocol of protocol.ts as a MediaStream. Caller audio in any chunk size is turned
 * into the call's 20 ms 8 kHz PCM16 frames (decoded, brought down from 16 kHz, split); the agent's 20 ms mu-law
 * frames go out as they come, in the leg's encoding at 8 kHz. Marks and clear are the carriers' (the page echoes a
 * mark once the audio before it has played, and every pending mark on clear). The call is named by start.call_id
 * and proven by start.token, the call's single-use capability; `started` tells the leg it is in and what it hears.
 * Besides audio, a leg may be handed the call's live items (the same messages as /v1/calls/<id>/stream).
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { mulawDecode, StreamingResampler } from '../../audio/index.js';
import { CodecStream, FrameSplitter } from '../codec_stream.js';
import type { MediaHandlers } from '../../media/stream.js';
import type { MediaCodec } from '../media_socket.js';
import {
  CLEAR_MESSAGE, formatRefusal, itemMessage, markMessage, maxPayloadBytes, mediaMessage, parseBrowserMessage, startedMessage,
  type BrowserInbound, type BrowserMediaFormat,
} from './protocol.js';

export class BrowserMediaError extends Error { override name = 'BrowserMediaError'; }

type BrowserStart = Extract<BrowserInbound, { event: 'start' }>;

/** Our side of one browser leg. */
export class BrowserStream extends CodecStream<BrowserInbound> {
  readonly format: BrowserMediaFormat;
  readonly callId: string;
  readonly #frames = new FrameSplitter();
  readonly #down?: StreamingResampler;
  /** an odd trailing byte of PCM16 held for the next message */
  #oddByte?: number;
  #closed: Array<() => void> = [];

  constructor(ws: WebSocket, start: BrowserStart, socket?: Pick<Duplex, 'cork' | 'uncork'>) {
    super(ws, `browser:${start.call_id}`, { call_id: start.call_id }, socket);
    this.format = start.media_format;
    this.callId = start.call_id;
    if (this.format.sample_rate === 16_000) this.#down = new StreamingResampler(16_000, 8000); // 16 kHz legs, kept continuous across messages
    ws.once('close', () => { for (const f of this.#closed.splice(0)) f(); });
  }

  /** The call's session listens from now on: the leg is told it is in, and what it will hear. */
  override attach(h: MediaHandlers): void {
    super.attach(h);
    this.send(startedMessage(this.callId, this.format));
  }

  /** an inbound message after start */
  deliver(m: BrowserInbound): void {
    switch (m.event) {
      case 'media': this.#audio(Buffer.from(m.payload, 'base64')); break;
      case 'mark': this.input({ kind: 'mark', name: m.name }); break;
      case 'dtmf': this.input({ kind: 'dtmf', digit: m.digit }); break;
      case 'stop': this.end('stop'); break;
      case 'start': this.ws.close(1008, 'a second start'); break;
    }
  }

  #audio(bytes: Buffer): void {
    if (bytes.length > maxPayloadBytes(this.format)) { this.ws.close(1009, 'media message longer than 1 s'); return; }
    let pcm: Int16Array;
    if (this.format.encoding === 'mulaw') pcm = mulawDecode(bytes);
    else {
      // little-endian samples; a browser may split a sample across messages
      const whole = this.#oddByte === undefined ? bytes : Buffer.concat([Buffer.of(this.#oddByte), bytes]);
      this.#oddByte = whole.length % 2 ? whole[whole.length - 1] : undefined;
      pcm = new Int16Array(whole.length >> 1);
      for (let i = 0; i < pcm.length; i++) pcm[i] = whole.readInt16LE(i * 2);
    }
    if (this.#down) pcm = this.#down.push(pcm);
    this.#frames.push(pcm, (frame) => this.input({ kind: 'audio', pcm: frame }));
  }

  sendMedia(frame: Uint8Array): void {
    if (this.format.encoding === 'mulaw') { this.send(mediaMessage(frame)); return; }
    const pcm = mulawDecode(frame);
    this.send(mediaMessage(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength)));
  }

  sendMark(name: string): void { this.send(markMessage(name)); }
  sendClear(): void { this.send(CLEAR_MESSAGE); }

  /** A live item of the call (a transcript, an entity, a status), as the live stream sends it. */
  sendItem(item: object): void { this.send(itemMessage(item)); }

  /** Runs `f` once when the leg's socket closes (whoever closes it). */
  onClose(f: () => void): void { if (this.ws.readyState >= this.ws.CLOSING) f(); else this.#closed.push(f); }
}

export const browserCodec: MediaCodec<BrowserInbound> = {
  name: 'browser',
  parse: parseBrowserMessage,
  startOf: (m) => {
    if (m.event !== 'start') return undefined;
    const why = formatRefusal(m.media_format);
    return why ? { refuse: { code: 1003, reason: why } } : { claim: { callId: m.call_id, token: m.token } };
  },
  open: (m, { ws, socket }) => new BrowserStream(ws, m as BrowserStart, socket),
};
