/**
 * What broke: a body labelled `Content-Encoding: gzip` (or `br`, `deflate`) that was not validly compressed answered
 * 500 internal (zlib's error reached the error handler unknown). It is the client's mistake: 400 malformed_request.
 */
import t from 'tap';
import { request } from 'node:http';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { startTestServer } from '../helpers/server.js';

const srv = await startTestServer();
t.teardown(() => srv.close());

function send(path: string, encoding: string, body: Buffer, type = 'application/json'): Promise<{ status: number; type: string; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${srv.baseUrl}${path}`, { method: 'POST', agent: false, headers: { 'content-type': type, 'content-encoding': encoding, 'content-length': body.length } }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_BODY = '{"domain":"realestate"}';

t.test('not validly compressed: 400 malformed_request for gzip, br and deflate, JSON and raw audio', async (t) => {
  const cases: Array<[string, string, Buffer, string?]> = [
    ['gzip', '/conversations', Buffer.from(JSON_BODY)],
    ['br', '/conversations', Buffer.from(JSON_BODY)],
    ['deflate', '/conversations', Buffer.from(JSON_BODY)],
    ['gzip', '/conversations', gzipSync(JSON_BODY).subarray(0, 12)], // truncated
    ['gzip', '/conversations/conv_000000000000000000000000/audio', Buffer.from('RIFF....WAVE'), 'audio/wav'],
  ];
  for (const [encoding, path, body, type] of cases) {
    const r = await send(path, encoding, body, type);
    t.equal(r.status, 400, `${encoding} ${path}: 400`);
    t.match(r.type, /^application\/problem\+json/);
    t.match(r.json, { code: 'malformed_request', detail: /not validly compressed/ }, `${encoding}: says why`);
  }
});

t.test('validly compressed bodies still work', async (t) => {
  t.equal((await send('/conversations', 'gzip', gzipSync(JSON_BODY))).status, 201, 'gzip');
  t.equal((await send('/conversations', 'br', brotliCompressSync(JSON_BODY))).status, 201, 'br');
});
