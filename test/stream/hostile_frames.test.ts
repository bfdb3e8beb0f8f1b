/**
 * Hostile frames on every socket the service owns: one bad frame used to raise an unhandled `error` on the
 * WebSocket and stop the process. Each socket must close only itself, with the protocol's close code.
 */
import net from 'node:net';
import t from 'tap';
import WebSocket from 'ws';
import { API_KEY, startTestServer } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { closed, insertCall, wsUrl } from './helpers.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const callId = await insertCall(srv.services, DEV_TENANT_ID, { status: 'completed' });
const sockets = {
  'live stream': () => wsUrl(srv.baseUrl, `/calls/${callId}/stream`),
  'carrier media': () => wsUrl(srv.baseUrl, '/media/twilio'),
};

const open = (url: string) => new Promise<WebSocket>((resolve, reject) => {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${API_KEY}` } });
  ws.on('error', () => {}); // the client side may see the server's close as an error too
  ws.once('open', () => resolve(ws));
  ws.once('unexpected-response', (_q, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
});

async function healthy(): Promise<boolean> {
  const r = await fetch(`${srv.baseUrl}/health`);
  return r.status === 200;
}

for (const [name, url] of Object.entries(sockets)) {
  t.test(`${name}: a frame over the size limit closes that socket with 1009`, async (t) => {
    const ws = await open(url());
    const done = closed(ws);
    ws.send('x'.repeat(name === 'live stream' ? 4097 : (1 << 20) + 1));
    t.equal((await done).code, 1009);
    t.ok(await healthy(), 'the process still answers');
  });

  t.test(`${name}: invalid UTF-8 in a text frame closes that socket with 1007`, async (t) => {
    const ws = await open(url());
    const done = closed(ws);
    // ws validates outgoing text only when asked; a raw frame is the honest hostile client
    const raw = (ws as unknown as { _socket: net.Socket })._socket;
    raw.write(Buffer.from([0x81, 0x84, 0, 0, 0, 0, 0xf8, 0x88, 0x80, 0x80])); // FIN text, masked, 4 bytes invalid UTF-8
    t.equal((await done).code, 1007);
    t.ok(await healthy());
  });

  t.test(`${name}: binary and fragmented frames do not stop the process`, async (t) => {
    const ws = await open(url());
    ws.send(Buffer.from([1, 2, 3, 4]), { binary: true });
    ws.send('{"ty', { fin: false });
    ws.send('pe":"x"}', { fin: true });
    await new Promise((r) => setTimeout(r, 100));
    t.ok(await healthy());
    ws.terminate();
  });

  t.test(`${name}: an abrupt reset mid-frame does not stop the process`, async (t) => {
    const ws = await open(url());
    const raw = (ws as unknown as { _socket: net.Socket })._socket;
    raw.write(Buffer.from([0x81, 0xfe, 0x10, 0x00, 1, 2, 3, 4, 0x41])); // announces 4096 bytes, sends one
    raw.resetAndDestroy();
    await new Promise((r) => setTimeout(r, 100));
    t.ok(await healthy());
  });
}
