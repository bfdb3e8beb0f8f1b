/**
 * Requests node's HTTP parser refuses before Express sees them were answered with an empty body (a request line
 * over 16 KiB: a bare 431). They are problem+json like every other error now, and the process carries on.
 */
import t from 'tap';
import net from 'node:net';
import { startTestServer } from '../helpers/server.js';

const srv = await startTestServer();
t.teardown(() => srv.close());

/** Sends raw bytes and returns everything the server answers before closing. */
function rawRequest(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(srv.port, '127.0.0.1', () => s.write(bytes));
    let out = '';
    s.on('data', (d) => { out += d.toString(); });
    s.on('end', () => resolve(out));
    s.on('error', reject);
  });
}

function parse(answer: string) {
  const [head, body] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), head, body: JSON.parse(body) };
}

t.test('a request line over 16 KiB: 431 problem+json', async (t) => {
  const r = parse(await rawRequest(`GET /v1/health?${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
  t.equal(r.status, 431);
  t.match(r.head, /content-type: application\/problem\+json/i);
  t.match(r.body, { status: 431, code: 'headers_too_large', title: 'Request header fields too large' });
});

t.test('headers over 16 KiB: 431 problem+json', async (t) => {
  const r = parse(await rawRequest(`GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`));
  t.equal(r.status, 431);
  t.equal(r.body.code, 'headers_too_large');
});

t.test('a malformed request: 400 problem+json', async (t) => {
  const r = parse(await rawRequest('NOT AN HTTP REQUEST\r\n\r\n'));
  t.equal(r.status, 400);
  t.match(r.body, { status: 400, code: 'malformed_request' });
});

t.test('the server still answers', async (t) => {
  t.equal((await fetch(`${srv.baseUrl}/health`)).status, 200);
});
