/**
 * call.completed delivery is at least once across a restart: the receiver answers 503 then 429, the server is
 * stopped mid-retry, a new server on the same database finishes the delivery with the same webhook-id.
 */
import t from 'tap';
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';

const hits: Array<{ headers: Record<string, string>; body: string }> = [];
let answer = 503;
/** Answers for the next hits, consumed in order before `answer` applies: no race between a hit and the test. */
const script: number[] = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => { hits.push({ headers: req.headers as Record<string, string>, body }); res.writeHead(script.shift() ?? answer).end(); });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
t.teardown(() => new Promise<void>((r) => receiver.close(() => r())));
const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
const pgOnly = !process.env.DATABASE_URL;

/** The call's webhook log once its delivery reached `state` (or as it stands after 10 s, for the assertion to show). */
async function webhookLogWhen(baseUrl: string, callId: string, state: string) {
  const until = Date.now() + 10_000;
  for (;;) {
    const log = await api(baseUrl, 'GET', `/calls/${callId}/webhooks`, { headers: { 'x-api-key': API_KEY } });
    if (log.body.data[0]?.state === state || Date.now() > until) return log;
    await new Promise((r) => setTimeout(r, 25));
  }
}

t.test('retry with the same webhook-id, survive a restart', { skip: pgOnly ? 'restart on the same database needs DATABASE_URL (PGlite runs in memory here)' : false }, async (t) => {
  const env = { SIM_TIME_SCALE: '20', WEBHOOK_RETRY_BASE_MS: '300', WEBHOOK_POLL_MS: '50' };
  const a = await startTestServer({ env });
  const d = await api(a.baseUrl, 'POST', '/calls/dispatch', { headers: { 'x-api-key': API_KEY }, body: { to: '+15005550002', agent_id: 'default', webhook_url: hookUrl } });
  t.equal(d.status, 201);
  for (let i = 0; i < 200 && hits.length < 1; i++) await new Promise((r) => setTimeout(r, 25));
  await a.close(); // stopped mid-retry
  t.ok(hits.length >= 1, 'first attempt failed with 503');
  answer = 429;
  const b = await startTestServer({ env, databaseUrl: a.databaseUrl });
  t.teardown(() => b.close());
  for (let i = 0; i < 100 && hits.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
  answer = 200;
  const log = await webhookLogWhen(b.baseUrl, d.body.id, 'delivered');
  t.equal(log.body.data[0].state, 'delivered');
  t.ok(log.body.data[0].log.length >= 3, 'every attempt logged');
  t.same(new Set(hits.map((h) => h.headers['webhook-id'])).size, 1, 'one webhook-id on every retry');
  const secret = (await api(b.baseUrl, 'GET', '/webhooks/secret', { token: await login(b.baseUrl) })).body.secret;
  const payload = new Webhook(secret).verify(hits.at(-1)!.body, hits.at(-1)!.headers) as { status: string; call_id: string };
  t.equal(payload.status, 'busy');
  t.equal(payload.call_id, d.body.id);
});

t.test('retries in one process: 503 then 200, 4xx is final', async (t) => {
  hits.length = 0;
  script.push(503, 503);
  answer = 200;
  const s = await startTestServer({ env: { SIM_TIME_SCALE: '20', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_POLL_MS: '50' } });
  t.teardown(() => s.close());
  const d = await api(s.baseUrl, 'POST', '/calls/dispatch', { headers: { 'x-api-key': API_KEY }, body: { to: '+15005550001', agent_id: 'default', webhook_url: hookUrl } });
  // The receiver sees the third attempt before the sender has stored its outcome: wait for the stored state,
  // not for the hit (polling on hits alone raced on a slower CI machine).
  const log = await webhookLogWhen(s.baseUrl, d.body.id, 'delivered');
  t.equal(log.body.data[0].state, 'delivered');
  t.same(log.body.data[0].log.map((a: { status_code: number }) => a.status_code), [503, 503, 200]);
  answer = 410;
  const e = await api(s.baseUrl, 'POST', '/calls/dispatch', { headers: { 'x-api-key': API_KEY }, body: { to: '+15005550001', agent_id: 'default', webhook_url: hookUrl } });
  const l2 = await webhookLogWhen(s.baseUrl, e.body.id, 'failed');
  t.equal(l2.body.data[0].state, 'failed', '410 is not retried');
  t.equal(l2.body.data[0].attempts, 1);
});
