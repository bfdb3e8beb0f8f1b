/**
 * WebSocket /v1/media/twilio: the carrier connects here (Twilio <Connect><Stream>, or our simulated carrier).
 * Live mode validates X-Twilio-Signature on the upgrade (HMAC-SHA1 of the wss:// URL, TWILIO_AUTH_TOKEN) and
 * refuses with 403 before accepting. After `connected` and `start`, the stream is handed to the call named in
 * start.customParameters.call_id; a stream for a call this process does not run is closed with 1008.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { problemBody } from '../api/problem.js';
import type { Logger } from '../log.js';
import { clearMessage, markMessage, mediaMessage, parseTwilioMessage, TwilioProtocolError, verifyTwilioSignature, type TwilioInbound } from './twilio_protocol.js';

export interface MediaStreamHandlers {
  media(frame: Uint8Array): void;
  mark(name: string): void;
  dtmf(digit: string): void;
  /** the carrier stopped the stream or the socket closed (called once) */
  ended(reason: 'stop' | 'closed'): void;
}

/** inbound messages kept for a stream whose call has not attached yet (10 s of media) */
const MAX_EARLY = 500;

/** Our side of one media stream. */
export class TwilioStream {
  #handlers?: MediaStreamHandlers;
  #ended = false;
  #endReason?: 'stop' | 'closed';
  /**
   * Messages that arrived between `start` and attach(): ws emits every message of one TCP read synchronously, so
   * the first media frames often arrive before the call's session (a promise continuation) attaches. They were
   * dropped; now they are replayed in order on attach.
   */
  #early: TwilioInbound[] = [];
  constructor(readonly ws: WebSocket, readonly streamSid: string, readonly start: Extract<TwilioInbound, { event: 'start' }>['start'],
    /** the socket under `ws` (the upgrade's), corked by batch() */
    private readonly socket?: Pick<Duplex, 'cork' | 'uncork'>) {}

  attach(h: MediaStreamHandlers): void {
    this.#handlers = h;
    for (const m of this.#early.splice(0)) this.deliver(m);
    if (this.#endReason && !this.#ended) this.end(this.#endReason);
  }

  /** internal: an inbound message after start */
  deliver(m: TwilioInbound): void {
    const h = this.#handlers;
    if (this.#ended) return;
    if (!h) { if (this.#early.length < MAX_EARLY) this.#early.push(m); return; }
    if (m.event === 'media') {
      if (m.media.track !== 'inbound') return;
      // a view on Node's 8 KB buffer pool, not a copy with an ArrayBuffer of its own per 20 ms frame: the session
      // keeps every frame (recording), and ~1M live ArrayBuffers at a few hundred calls made GC pauses of tens of ms
      h.media(Buffer.from(m.media.payload, 'base64'));
    } else if (m.event === 'mark') h.mark(m.mark.name);
    else if (m.event === 'dtmf') h.dtmf(m.dtmf.digit);
    else if (m.event === 'stop') this.end('stop');
  }

  end(reason: 'stop' | 'closed'): void {
    if (this.#ended) return;
    if (!this.#handlers) { this.#endReason ??= reason; return; } // told on attach, after the early messages
    this.#ended = true;
    this.#handlers.ended(reason);
  }

  sendMedia(frame: Uint8Array): void { this.#send(mediaMessage(this.streamSid, frame)); }
  sendMark(name: string): void { this.#send(markMessage(this.streamSid, name)); }
  sendClear(): void { this.#send(clearMessage(this.streamSid)); }
  #send(text: string): void { if (this.ws.readyState === this.ws.OPEN) this.ws.send(text); }
  /**
   * What `send` sends leaves in one TCP write: ws writes each message at once (a system call per message, the
   * largest single cost of a busy media edge), and a playout tick sends frames and a mark. Uncorking flushes.
   */
  batch(send: () => void): void {
    this.socket?.cork();
    try { send(); } finally { this.socket?.uncork(); }
  }

  /** We hang up: closing a <Connect><Stream> socket ends the call when no TwiML follows (§1.1). */
  close(): void { if (this.ws.readyState === this.ws.OPEN) this.ws.close(1000, 'call ended'); }
}

export interface TwilioEdgeOptions {
  log: Logger;
  /** live mode: the auth token the signature is checked with; undefined = no check (simulator) */
  authToken?: string;
  /** the wss:// URL the carrier was told (signed verbatim) */
  signedUrl: () => string;
  /** hands the started stream to its call; false = unknown call (closed with 1008) */
  onStream(stream: TwilioStream): boolean;
}

const refuse = (socket: Duplex, status: number, code: 'forbidden' | 'not_found', detail: string) => {
  const body = JSON.stringify(problemBody(code, detail));
  socket.end(`HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Not Found'}\r\nContent-Type: application/problem+json\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
};

/** The media edge's upgrade handler; `closeAll()` ends every carrier socket still open (shutdown). */
export function twilioUpgradeHandler(o: TwilioEdgeOptions): ((req: IncomingMessage, socket: Duplex, head: Buffer) => void) & { closeAll(): void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const handler = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (o.authToken !== undefined) {
      const sig = req.headers['x-twilio-signature'];
      if (!verifyTwilioSignature(o.authToken, o.signedUrl(), Array.isArray(sig) ? sig[0] : sig)) {
        refuse(socket, 403, 'forbidden', 'X-Twilio-Signature does not match');
        return;
      }
    }
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, socket, o));
  };
  return Object.assign(handler, { closeAll: () => { for (const ws of wss.clients) ws.close(1001, 'server shutting down'); } });
}

function accept(ws: WebSocket, socket: Duplex, o: TwilioEdgeOptions): void {
  let stream: TwilioStream | undefined;
  ws.on('message', (data, isBinary) => {
    if (isBinary) { ws.close(1003, 'binary frames are not part of the protocol'); return; }
    let m: TwilioInbound;
    try { m = parseTwilioMessage(data.toString()); } catch (err) {
      o.log.warn({ err: (err as TwilioProtocolError).message }, 'media stream: invalid message');
      ws.close(1007, 'invalid message');
      return;
    }
    if (stream) { if ('streamSid' in m && m.streamSid === stream.streamSid) stream.deliver(m); return; }
    if (m.event === 'connected') return;
    if (m.event !== 'start') return; // media before start: ignored, as Twilio never does it
    stream = new TwilioStream(ws, m.start.streamSid, m.start, socket);
    if (!o.onStream(stream)) { stream = undefined; ws.close(1008, 'unknown call'); }
  });
  ws.on('close', () => stream?.end('closed'));
  ws.on('error', () => stream?.end('closed'));
}
