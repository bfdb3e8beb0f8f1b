/**
 * An HTTP server for an Express app whose request and response objects are born with the app's prototypes.
 *
 * Why: Express gives every request the app's request/response methods by changing the prototype of node's
 * objects (`Object.setPrototypeOf(req, app.request)` in app.handle). V8 then sees each request object change
 * its shape after construction, and every property access on req/res along the middleware chain goes slow and
 * megamorphic. Constructed with app.request / app.response as prototypes to begin with, Express's
 * setPrototypeOf changes nothing and the shapes stay stable (about half the CPU per request: bench/README.md,
 * "HTTP"). The objects are still IncomingMessage and ServerResponse (instanceof holds) with the same methods.
 */
import { createServer, IncomingMessage, ServerResponse, STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { ERROR_STATUS, type ErrorCode } from '../errors.js';
import { problemBody } from './problem.js';

/** How long a connection may take over its request head, its whole request, and idle between requests, ms. */
export interface ConnectionLimits { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number }

/** node's defaults would let a connection that never sends a byte stay for 60-90 s (headers 60 s, checked every 30 s) */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { headersTimeoutMs: 5_000, requestTimeoutMs: 120_000, keepAliveTimeoutMs: 5_000 };

export function createExpressServer(app: Express, limits: ConnectionLimits = DEFAULT_CONNECTION_LIMITS): Server {
  // Function constructors, not classes: a class's `prototype` cannot be replaced by the app's objects.
  function AppRequest(this: IncomingMessage, socket: Socket) { IncomingMessage.call(this, socket); }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, req: IncomingMessage, options?: unknown) {
    (ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: unknown) => void).call(this, req, options);
  }
  AppResponse.prototype = app.response;
  const server = createServer({
    IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof ServerResponse,
    // A connection counts against headersTimeout from the moment it is accepted, also when it never sends a byte
    // (node 20 tracks every connection from accept; test/api/idle_connections.test.ts holds it to that). node
    // checks the deadlines every connectionsCheckingInterval: a fraction of the head's deadline, at most 1 s, so a
    // silent connection is closed within about 1.5 times HTTP_HEADERS_TIMEOUT_MS.
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 2))),
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // sockets handed to a WebSocket upgrade leave node's HTTP bookkeeping: none of these deadlines reaches them
  }, app);
  server.on('clientError', answerClientError);
  return server;
}

/**
 * A request node's HTTP parser refuses before Express sees it (request line and headers over the 16 KiB
 * --max-http-header-size, a malformed request, a header timeout) is answered in problem+json like every other
 * error; node's own answer had an empty body. The connection closes after it.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) { socket.destroy(); return; }
  const [code, detail]: [ErrorCode, string] = err.code === 'HPE_HEADER_OVERFLOW'
    ? ['headers_too_large', 'the request line and headers exceed 16 KiB']
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? ['request_timeout', 'the request was not received in time']
      : ['malformed_request', 'the HTTP request could not be parsed'];
  const status = ERROR_STATUS[code];
  const body = JSON.stringify(problemBody(code, detail));
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
