/**
 * The upgrade handler of /v1/calls/:id/stream. Auth before the upgrade: token from `Authorization: Bearer`,
 * the subprotocol pair `voicecall.v1` + `bearer.<token>` (browsers: they cannot set headers on a WebSocket,
 * and a token in the URL ends up in logs and history), or the `access_token` query parameter (JWT or service
 * API key); the call must be the caller's tenant's (anything else is 404, so a listener cannot probe other
 * tenants' call ids). Refusals are problem+json.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { decodeJwt } from 'jose';
import { WebSocketServer, type WebSocket } from 'ws';
import { ApiError } from '../errors.js';
import type { Logger } from '../log.js';
import { refuseUpgrade } from '../problem.js';
import type { Principal } from '../auth/tokens.js';
import { isTerminal } from '../calls/types.js';
import type { StreamEdge } from './edge.js';
import { CLOSE, clientMessage, type ErrorReply } from './protocol.js';

/** Client frames are tiny JSON commands. */
const MAX_CLIENT_MESSAGE_BYTES = 4096;
const MAX_SEQ = 2 ** 31 - 1;
/** The subprotocol the server selects; the token travels beside it as `bearer.<token>` and is never echoed. */
export const STREAM_SUBPROTOCOL = 'voicecall.v1';
const BEARER_SUBPROTOCOL = 'bearer.';

/** What the socket needs of the service: no more (the API layer builds it from its deps). */
export interface StreamSocketPorts {
  log: Logger;
  /** a JWT or API key to its principal; throws ApiError('unauthenticated') otherwise */
  authenticate(token: string): Promise<Principal>;
  /** the call's status if it is the tenant's */
  findCall(tenantId: string, callId: string): Promise<{ status: string } | undefined>;
  edge: Pick<StreamEdge, 'attach'>;
  listeners: { inc(): void; dec(): void };
  transfer(tenantId: string, callId: string, req: { target?: string; by: string; mode?: 'cold' | 'warm'; summary?: string }): Promise<unknown>;
  /** told when a user's tokens are revoked (their open streams close); returns the unsubscribe */
  onUserRevoked(userId: string, listener: () => void): () => void;
  /** told when any API key is revoked, on any instance (open streams of a key re-check it); returns the unsubscribe */
  onApiKeysRevoked(listener: () => void): () => void;
}

export function streamUpgradeHandler(deps: StreamSocketPorts) {
  const wss = new WebSocketServer({
    noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES, clientTracking: false, perMessageDeflate: false,
    // ws would select the first offered protocol, which may be the bearer one: echoing a token in a response header.
    handleProtocols: (offered) => (offered.has(STREAM_SUBPROTOCOL) ? STREAM_SUBPROTOCOL : false),
  });
  return (req: IncomingMessage, socket: Duplex, head: Buffer, params: Record<string, string>): void => {
    socket.on('error', () => {});
    upgrade(deps, wss, req, socket, head, params.id ?? '').catch((err) => {
      const e = err instanceof ApiError ? err : new ApiError('internal', 'could not open the stream');
      if (!(err instanceof ApiError)) deps.log.error({ err }, 'stream upgrade failed');
      refuse(socket, e);
    });
  };
}

async function upgrade(deps: StreamSocketPorts, wss: WebSocketServer, req: IncomingMessage, socket: Duplex, head: Buffer, callId: string) {
  const url = new URL(req.url ?? '/', 'http://x');
  const token = bearerToken(req) || subprotocolToken(req) || url.searchParams.get('access_token');
  if (!token) throw new ApiError('unauthenticated', `missing credentials: Authorization: Bearer <token>, subprotocols ${STREAM_SUBPROTOCOL} + ${BEARER_SUBPROTOCOL}<token>, or ?access_token=`);
  const principal = await deps.authenticate(token);
  const afterRaw = url.searchParams.get('after_seq');
  const afterSeq = afterRaw === null ? 0 : Number(afterRaw);
  // seq is a PostgreSQL integer: larger values could never match and would fail the query.
  if (!Number.isSafeInteger(afterSeq) || afterSeq < 0 || afterSeq > MAX_SEQ || (afterRaw !== null && !/^\d+$/.test(afterRaw))) {
    throw new ApiError('validation_failed', 'after_seq must be a non-negative integer', { fields: [{ path: 'after_seq', message: 'must be a non-negative integer' }] });
  }
  const call = await deps.findCall(principal.tenantId, callId);
  if (!call) throw new ApiError('not_found', 'call not found');
  if (socket.destroyed) return;
  wss.handleUpgrade(req, socket, head, (ws) => {
    // A protocol error (oversized frame, invalid UTF-8) is emitted here after ws has already sent the matching
    // close frame (1009, 1007): without a listener it would be an uncaught exception that stops the process.
    ws.on('error', (err) => deps.log.debug({ err, call_id: callId }, 'stream listener socket error'));
    deps.listeners.inc();
    const expiry = closeAtExpiry(ws, token);
    const revoked = () => ws.close(CLOSE.tokenRevoked.code, CLOSE.tokenRevoked.reason);
    const offRevoked = principal.kind === 'user'
      ? deps.onUserRevoked(principal.sub, revoked)
      : deps.onApiKeysRevoked(() => { void stillValid(deps, token).then((ok) => { if (!ok) revoked(); }); });
    const gone = () => { clearTimeout(expiry); offRevoked?.(); deps.listeners.dec(); };
    const session: SocketSession = { ws, principal, callId, transferInFlight: false };
    ws.on('message', (data, isBinary) => void onClientMessage(deps, session, isBinary ? undefined : String(data)));
    void deps.edge.attach(ws, socket, callId, afterSeq, isTerminal(call.status), gone);
  });
}

/** A revocation message names no key: each open stream of a key asks whether its own key still authenticates. */
async function stillValid(deps: StreamSocketPorts, token: string): Promise<boolean> {
  try { await deps.authenticate(token); return true; } catch (err) {
    if (err instanceof ApiError && err.code === 'unauthenticated') return false;
    deps.log.warn({ err }, 'could not re-check a revoked API key; the stream stays open');
    return true;
  }
}

/** `Authorization: Bearer <token>`: '' when the header is there but malformed. */
function bearerToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(h)?.[1] ?? '';
}

/** The token of an offered `bearer.<token>` subprotocol; it must come with `voicecall.v1`, the one selected. */
function subprotocolToken(req: IncomingMessage): string | undefined {
  const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const bearer = offered.find((p) => p.startsWith(BEARER_SUBPROTOCOL));
  if (!bearer) return undefined;
  if (!offered.includes(STREAM_SUBPROTOCOL)) {
    throw new ApiError('validation_failed', `offer the subprotocol ${STREAM_SUBPROTOCOL} with ${BEARER_SUBPROTOCOL}<token>`, { fields: [{ path: 'headers.sec-websocket-protocol', message: `must include ${STREAM_SUBPROTOCOL}` }] });
  }
  return bearer.slice(BEARER_SUBPROTOCOL.length) || undefined;
}

interface SocketSession { ws: WebSocket; principal: Principal; callId: string; transferInFlight: boolean }

async function onClientMessage(deps: StreamSocketPorts, session: SocketSession, text: string | undefined): Promise<void> {
  const { ws, principal, callId } = session;
  const reply = (r: ErrorReply) => { if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(r)); };
  let json: unknown;
  try { json = JSON.parse(text ?? ''); } catch {
    return reply({ type: 'error', code: 'malformed_json', detail: 'messages must be JSON text' });
  }
  const parsed = clientMessage.safeParse(json);
  if (!parsed.success) {
    return reply({ type: 'error', code: 'validation_failed', detail: parsed.error.issues.map((i) => `${i.path.join('.') || 'message'}: ${i.message}`).join('; ') });
  }
  // One transfer at a time per socket: a client repeating itself must not queue carrier work.
  if (session.transferInFlight) return reply({ type: 'error', request: 'transfer', code: 'conflict', detail: 'a transfer is already in progress' });
  session.transferInFlight = true;
  try {
    // Every principal is at least an operator (roles: operator < admin), which is what a transfer needs.
    const { type: _type, ...req } = parsed.data;
    await deps.transfer(principal.tenantId, callId, { ...req, by: principal.sub });
  } catch (err) {
    if (err instanceof ApiError) return reply({ type: 'error', request: 'transfer', code: err.code, detail: err.message });
    deps.log.error({ err, call_id: callId }, 'transfer from a stream listener failed');
    reply({ type: 'error', request: 'transfer', code: 'internal', detail: 'transfer failed; it has been logged' });
  } finally {
    session.transferInFlight = false;
  }
}

/** A JWT listener is cut when its token expires (4001); it must come back with a fresh token. API keys do not expire. */
function closeAtExpiry(ws: WebSocket, token: string): NodeJS.Timeout | undefined {
  let exp: number | undefined;
  try { exp = decodeJwt(token).exp; } catch { return undefined; }
  if (!exp) return undefined;
  // setTimeout's limit is 2^31-1 ms (~24.8 days); tokens live hours at most.
  const ms = Math.min(exp * 1000 - Date.now(), 2 ** 31 - 1);
  const timer = setTimeout(() => ws.close(CLOSE.tokenExpired.code, CLOSE.tokenExpired.reason), Math.max(0, ms));
  timer.unref();
  return timer;
}

function refuse(socket: Duplex, err: ApiError): void {
  refuseUpgrade(socket, err.code, err.message, { extra: err.extra });
}
