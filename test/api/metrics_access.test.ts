/**
 * GET /metrics is public by default (scrapers expect it); METRICS_TOKEN makes it need a bearer token, and
 * METRICS_PORT moves it to a listener of its own, off the API's address.
 */
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const origin = (baseUrl: string) => new URL(baseUrl).origin;

t.test('public by default', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.close());
  const r = await fetch(`${origin(srv.baseUrl)}/metrics`);
  t.equal(r.status, 200);
  t.match(await r.text(), /http_requests_total/);
});

t.test('METRICS_TOKEN: a bearer token is needed, compared exactly', async (t) => {
  const srv = await startTestServer({ env: { METRICS_TOKEN: TOKEN } });
  t.teardown(() => srv.close());
  const url = `${origin(srv.baseUrl)}/metrics`;
  for (const [name, headers] of [['none', {}], ['wrong', { authorization: `Bearer ${TOKEN}x` }], ['not bearer', { authorization: `Basic ${TOKEN}` }]] as const) {
    const r = await fetch(url, { headers });
    t.equal(r.status, 401, `${name}: 401`);
    t.match(r.headers.get('content-type'), /^application\/problem\+json/);
    t.equal((await r.json()).code, 'unauthenticated');
  }
  const ok = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  t.equal(ok.status, 200);
  t.match(await ok.text(), /process_cpu_seconds_total/);
});

t.test('METRICS_PORT: served on its own listener and not on the API address', async (t) => {
  const srv = await startTestServer({ env: { METRICS_PORT: '0', METRICS_TOKEN: TOKEN } });
  t.teardown(() => srv.close());
  t.ok(srv.metricsPort && srv.metricsPort !== srv.port, `metrics on port ${srv.metricsPort}`);
  const onApi = await fetch(`${origin(srv.baseUrl)}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  t.equal(onApi.status, 404, 'the API address no longer serves it');
  const own = `http://127.0.0.1:${srv.metricsPort}`;
  t.equal((await fetch(`${own}/metrics`)).status, 401, 'the token applies there too');
  const ok = await fetch(`${own}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  t.equal(ok.status, 200);
  t.match(await ok.text(), /http_requests_total/);
  t.equal((await fetch(`${own}/v1/health`)).status, 404, 'and nothing else');
});
