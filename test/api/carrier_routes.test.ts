/**
 * The live carrier's doors when no live carrier is configured: its callbacks answer 404 problem+json and its
 * media sockets refuse the upgrade; the simulator's Twilio-protocol socket stays where it was.
 */
import t from 'tap';
import WebSocket from 'ws';
import { startTestServer } from '../helpers/server.js';

const srv = await startTestServer();
t.teardown(() => srv.close());

t.test('callbacks of a carrier not in use: 404, and a form body is not refused as non-JSON first', async (t) => {
  const r = await fetch(`${srv.baseUrl}/carriers/twilio/status`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'CallSid=CA1&CallStatus=ringing' });
  t.equal(r.status, 404);
  t.match(r.headers.get('content-type'), /application\/problem\+json/);
  t.match(await r.json(), { code: 'not_found', detail: /no twilio carrier here/ });
  const bad = await fetch(`${srv.baseUrl}/carriers/acme/status`, { method: 'POST' });
  t.equal(bad.status, 400, 'an unknown carrier is a validation error');
});

const upgrade = (path: string) => new Promise<number>((resolve) => {
  const ws = new WebSocket(srv.baseUrl.replace(/^http/, 'ws') + path);
  ws.on('error', () => {});
  ws.once('open', () => { ws.close(); resolve(101); });
  ws.once('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0));
});

t.test('media sockets of carriers not in use are refused; the simulator keeps /media/twilio', async (t) => {
  t.equal(await upgrade('/media/plivo'), 404);
  t.equal(await upgrade('/media/exotel'), 404);
  t.equal(await upgrade('/media/twilio'), 101);
});
