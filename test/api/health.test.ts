import t from 'tap';
import { API_KEY, startTestServer, api } from '../helpers/server.js';

const srv = await startTestServer();
t.teardown(() => srv.close());

t.test('health and ready answer', async (t) => {
  const h = await api(srv.baseUrl, 'GET', '/health');
  t.equal(h.status, 200);
  t.equal(h.body.status, 'ok');
  const r = await api(srv.baseUrl, 'GET', '/ready');
  t.equal(r.status, 200);
  t.same(r.body.checks, { database: true, bus: true });
});

t.test('reads carry an ETag and answer 304 to a matching If-None-Match; writes carry none', async (t) => {
  const first = await fetch(`${srv.baseUrl}/health`);
  const tag = first.headers.get('etag');
  t.match(tag, /^W\/"[\w+/=-]+"$/, 'weak ETag');
  t.match(first.headers.get('content-type'), /^application\/json; charset=utf-8/);
  t.same(await first.json(), { status: 'ok', mode: 'simulator' });
  // fetch adds Cache-Control: no-cache to a conditional request unless one is given (and no-cache forbids 304)
  const again = await fetch(`${srv.baseUrl}/health`, { headers: { 'if-none-match': tag!, 'cache-control': 'max-age=0' } });
  t.equal(again.status, 304);
  t.equal(await again.text(), '');
  const other = await fetch(`${srv.baseUrl}/health`, { headers: { 'if-none-match': 'W/"other"', 'cache-control': 'max-age=0' } });
  t.equal(other.status, 200);
  await other.text();
  const write = await fetch(`${srv.baseUrl}/calls/dispatch`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
    body: JSON.stringify({ to: '+15005550002' }) });
  t.equal(write.status, 201);
  t.equal(write.headers.get('etag'), null);
  await write.text();
});
