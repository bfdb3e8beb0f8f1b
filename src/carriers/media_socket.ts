/**
 * The one media WebSocket every carrier and the simulator use (/v1/media/<name>); a codec says how its wire reads.
 * From the upgrade to the end of the stream:
 * - the upgrade is checked before it is accepted (the carrier's signature, or a capability in the URL), else 403;
 * - messages are text only (1003 otherwise), at most MAX_MEDIA_MESSAGE_BYTES each (1009), each parsed by the codec
 *   (1007 when it cannot be);
 * - nothing but a `start` is believed before the stream opens; a socket that does not start within
 *   START_TIMEOUT_MS is closed (1008), and so is a second start on a socket whose first one was refused;
 * - the start must be in a format the codec speaks (its own close code) and carry the call's single-use
 *   capability, unless the upgrade carried it (1008 'not authorized for this call');
 * - the call must be one this instance runs and waits a stream for (1008 'unknown call');
 * - its close or error ends the stream; closeAll() ends every socket still open (shutdown: 1001).
 * A codec for another kind of media socket (a browser sending PCM16 or mu-law) is one more MediaCodec.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { CallCapabilities } from '../auth/call_capability.js';
import type { Logger } from '../log.js';
import type { MediaStream } from '../media/stream.js';
import { refuseUpgrade } from '../problem.js';
import type { CodecStream } from './codec_stream.js';
import type { UpgradeHandler } from './contract.js';

/** a media socket must send `start` within this long, ms */
export const START_TIMEOUT_MS = 5000;
/** the largest message a media socket takes (a second of 16-bit 24 kHz audio in base64 is ~64 KB) */
export const MAX_MEDIA_MESSAGE_BYTES = 1 << 20;

/** The call a stream says it belongs to, and the capability that proves it. */
export interface StreamClaim { callId: string; token?: string }

export interface MediaCodec<M extends { event: string }> {
  /** for the log, e.g. 'plivo' */
  readonly name: string;
  /** one text message; throws on what is not the protocol's */
  parse(text: string): M;
  /** a codec whose upgrade URL names the call and carries its capability (redeemed before the upgrade is accepted) */
  claimOfUpgrade?(url: URL): StreamClaim;
  /**
   * A `start`: the call it claims, or why its format is refused (a close code and reason); undefined for any
   * other message.
   */
  startOf(m: M): { claim: StreamClaim } | { refuse: { code: number; reason: string } } | undefined;
  /** our side of the stream the start opens */
  open(m: M, link: { ws: WebSocket; socket: Duplex; callId: string }): CodecStream<M>;
}

export interface MediaSocketOptions {
  log: Logger;
  /** redeems the call's capability (single use) */
  capabilities: Pick<CallCapabilities, 'redeem'>;
  /** hands the started stream to its call; false = unknown call, or one with its stream already (closed with 1008) */
  onStream(callId: string, stream: MediaStream): boolean;
  /** the carrier's proof on the upgrade itself (a signature): a reason to refuse it with 403, or undefined */
  refuseUpgrade?(req: IncomingMessage): string | undefined;
  /** override of START_TIMEOUT_MS (tests) */
  startTimeoutMs?: number;
}

export type MediaSocket = UpgradeHandler & { closeAll(): void };

export function mediaSocket<M extends { event: string }>(codec: MediaCodec<M>, o: MediaSocketOptions): MediaSocket {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MEDIA_MESSAGE_BYTES });
  const handler = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => {}); // a reset during the handshake must not become an uncaught error
    const why = o.refuseUpgrade?.(req);
    if (why !== undefined) { refuseUpgrade(socket, 'forbidden', why); return; }
    let claim: StreamClaim | undefined;
    if (codec.claimOfUpgrade) {
      claim = codec.claimOfUpgrade(new URL(req.url ?? '/', 'http://x'));
      if (!o.capabilities.redeem(claim.callId, claim.token)) {
        o.log.warn({ call_id: claim.callId.slice(0, 64) }, `${codec.name} media refused: no valid capability for the call`);
        refuseUpgrade(socket, 'forbidden', 'not a valid stream URL for this call');
        return;
      }
    }
    wss.handleUpgrade(req, socket, head, (ws) => run(ws, socket, claim));
  };

  const run = (ws: WebSocket, socket: Duplex, upgradeClaim: StreamClaim | undefined): void => {
    let stream: CodecStream<M> | undefined;
    let started = false; // one start per socket: a refused one is not retried with another capability
    const timer = setTimeout(() => { if (!started) ws.close(1008, 'no start in time'); }, o.startTimeoutMs ?? START_TIMEOUT_MS);
    timer.unref();
    const start = (m: M): void => {
      const s = codec.startOf(m);
      if (!s) return;
      started = true;
      clearTimeout(timer);
      if ('refuse' in s) { ws.close(s.refuse.code, s.refuse.reason); return; }
      const claim = upgradeClaim ?? s.claim;
      if (!upgradeClaim && !o.capabilities.redeem(claim.callId, claim.token)) {
        o.log.warn({ call_id: claim.callId.slice(0, 64) }, `${codec.name} media refused: no valid capability for the call`);
        ws.close(1008, 'not authorized for this call');
        return;
      }
      const opened = codec.open(m, { ws, socket, callId: claim.callId });
      if (o.onStream(claim.callId, opened)) stream = opened;
      else ws.close(1008, 'unknown call');
    };
    ws.on('message', (data, isBinary) => {
      if (isBinary) { ws.close(1003, 'binary frames are not part of the protocol'); return; }
      let m: M;
      try { m = codec.parse(data.toString()); } catch (err) {
        o.log.warn({ err: (err as Error).message }, `${codec.name} media: invalid message`);
        ws.close(1007, 'invalid message');
        return;
      }
      if (stream) stream.deliver(m);
      else if (!started) start(m);
    });
    ws.on('close', () => { clearTimeout(timer); stream?.end('closed'); });
    ws.on('error', () => stream?.end('closed'));
  };

  return Object.assign(handler, { closeAll: () => { for (const ws of wss.clients) ws.close(1001, 'server shutting down'); } });
}
