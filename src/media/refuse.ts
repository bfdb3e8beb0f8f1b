/** Refuses a WebSocket upgrade before it is accepted: an HTTP answer in problem+json, then the socket closes. */
import type { Duplex } from 'node:stream';
import { problemBody } from '../api/problem.js';

export function refuseUpgrade(socket: Duplex, detail: string, status: 403 | 404 = 404): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(problemBody(status === 403 ? 'forbidden' : 'not_found', detail));
  socket.end(`HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Not Found'}\r\nContent-Type: application/problem+json\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
