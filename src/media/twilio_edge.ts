/**
 * WebSocket /v1/media/twilio: the carrier connects here (Twilio <Connect><Stream>, or our simulated carrier).
 * Live mode validates X-Twilio-Signature on the upgrade (HMAC-SHA1 of the wss:// URL, TWILIO_AUTH_TOKEN) and
 * refuses with 403 before accepting. In every mode the stream must prove it is the call's: `start` carries the
 * call's single-use capability in start.customParameters.stream_token (src/auth/call_capability.ts, given to the
 * carrier with the call), next to start.customParameters.call_id. A socket that sends no `start` within
 * START_TIMEOUT_MS, a missing or wrong capability, or a call this process does not run (or that has its stream
 * already) is closed with 1008.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { refuseUpgrade } from './refuse.js';
import { mulawDecode } from '../audio/index.js';
import type { CallCapabilities } from '../auth/call_capability.js';
import type { Logger } from '../log.js';
import { CodecStream, runMediaSocket } from './codec_stream.js';
import { clearMessage, markMessage, mediaMessage, parseTwilioMessage, verifyTwilioSignature, type TwilioInbound } from './twilio_protocol.js';

/** a carrier socket must send `start` within this long, ms */
export const START_TIMEOUT_MS = 5000;
/** the customParameters key of the call's media capability */
export const STREAM_TOKEN_PARAMETER = 'stream_token';

type TwilioStart = Extract<TwilioInbound, { event: 'start' }>['start'];

/** Our side of one media stream. */
export class TwilioStream extends CodecStream {
  constructor(ws: WebSocket, readonly streamSid: string, readonly start: TwilioStart,
    /** the socket under `ws` (the upgrade's), corked by batch() */
    socket?: Pick<Duplex, 'cork' | 'uncork'>) {
    super(ws, start.callSid, start.customParameters, socket);
  }

  /** internal: an inbound message after start (another stream's are ignored) */
  deliver(m: TwilioInbound): void {
    if (!('streamSid' in m) || m.streamSid !== this.streamSid) return;
    if (m.event === 'media') {
      // the call's one decode of this frame
      if (m.media.track === 'inbound') this.input({ kind: 'audio', pcm: mulawDecode(Buffer.from(m.media.payload, 'base64')) });
    } else if (m.event === 'mark') this.input({ kind: 'mark', name: m.mark.name });
    else if (m.event === 'dtmf') this.input({ kind: 'dtmf', digit: m.dtmf.digit });
    else if (m.event === 'stop') this.end('stop');
  }

  sendMedia(frame: Uint8Array): void { this.send(mediaMessage(this.streamSid, frame)); }
  sendMark(name: string): void { this.send(markMessage(this.streamSid, name)); }
  sendClear(): void { this.send(clearMessage(this.streamSid)); }
}

export interface TwilioEdgeOptions {
  log: Logger;
  /** live mode: the auth token the signature is checked with; undefined = no check (simulator) */
  authToken?: string;
  /** the wss:// URL the carrier was told (signed verbatim) */
  signedUrl: () => string;
  /** redeems the call's media capability (start.customParameters.stream_token) */
  capabilities: Pick<CallCapabilities, 'redeem'>;
  /** hands the started stream to its call; false = unknown call, or one with its stream already (closed with 1008) */
  onStream(stream: TwilioStream): boolean;
  /** override of START_TIMEOUT_MS (tests) */
  startTimeoutMs?: number;
}

/** The media edge's upgrade handler; `closeAll()` ends every carrier socket still open (shutdown). */
export function twilioUpgradeHandler(o: TwilioEdgeOptions): ((req: IncomingMessage, socket: Duplex, head: Buffer) => void) & { closeAll(): void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const handler = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (o.authToken !== undefined) {
      const sig = req.headers['x-twilio-signature'];
      if (!verifyTwilioSignature(o.authToken, o.signedUrl(), Array.isArray(sig) ? sig[0] : sig)) {
        refuseUpgrade(socket, 'X-Twilio-Signature does not match', 403);
        return;
      }
    }
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, socket, o));
  };
  return Object.assign(handler, { closeAll: () => { for (const ws of wss.clients) ws.close(1001, 'server shutting down'); } });
}

function accept(ws: WebSocket, socket: Duplex, o: TwilioEdgeOptions): void {
  runMediaSocket<TwilioInbound>(ws, {
    name: 'twilio',
    parse: parseTwilioMessage,
    start(m) {
      if (m.event !== 'start') return undefined;
      const callId = m.start.customParameters.call_id ?? '';
      if (!o.capabilities.redeem(callId, m.start.customParameters[STREAM_TOKEN_PARAMETER])) {
        o.log.warn({ call_id: callId.slice(0, 64) }, 'media stream refused: no valid capability for the call');
        ws.close(1008, 'not authorized for this call');
        return undefined;
      }
      const stream = new TwilioStream(ws, m.start.streamSid, m.start, socket);
      if (o.onStream(stream)) return stream;
      ws.close(1008, 'unknown call');
      return undefined;
    },
  }, o.log, o.startTimeoutMs ?? START_TIMEOUT_MS);
}
