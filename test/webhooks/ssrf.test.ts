/**
 * Server-side request forgery through webhook_url: a tenant could have call.completed delivered to the
 * service's own network (127.0.0.1 in eight spellings were accepted and delivered) and read open ports from the
 * delivery log. Now a literal refused address is a 400 address_not_allowed naming the field, user:password@ is
 * refused, and a name resolving to a refused address fails its delivery at once, not retried, with the reason.
 * This server runs with no WEBHOOK_ALLOWED_CIDRS exception; the receiver listens on loopback and must see nothing.
 */
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';

const hits: string[] = [];
const receiver = createServer((req, res) => { hits.push(req.url ?? ''); res.end('ok'); });
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
t.teardown(() => new Promise<void>((r) => receiver.close(() => r())));
const port = (receiver.address() as AddressInfo).port;

const srv = await startTestServer({ env: { WEBHOOK_ALLOWED_CIDRS: undefined, WEBHOOK_POLL_MS: '50' } });
t.teardown(() => srv.close());
const key = { 'x-api-key': API_KEY };

const SPELLINGS = ['127.0.0.1', 'localhost', '0.0.0.0', '127.1', '2130706433', '0x7f000001', '[::1]', '[::ffff:127.0.0.1]',
  '0177.0.0.1', '169.254.169.254', '10.0.0.1', '172.16.5.4', '192.168.1.1', '100.64.0.1', '[fd00::1]', '[fe80::1]', '224.0.0.1', '[::]'];

t.test('dispatch: a refused literal address is 400 address_not_allowed naming webhook_url', async (t) => {
  for (const host of SPELLINGS) {
    const r = await api(srv.baseUrl, 'POST', '/calls/dispatch', { headers: key, body: { to: '+15005550001', agent_id: 'default', webhook_url: `http://${host}:${port}/hook` } });
    t.equal(r.status, 400, host);
    t.match(r.headers.get('content-type'), /application\/problem\+json/);
    t.equal(r.body.code, 'address_not_allowed', host);
    t.same(r.body.fields.map((f: { path: string }) => f.path), ['body.webhook_url']);
  }
  t.same(hits, []);
});

t.test('campaigns: the same policy on their webhook_url', async (t) => {
  const token = await login(srv.baseUrl);
  const body = { name: 'c', agent_id: 'default', contacts: [{ phone: '+14155550123' }], timezone: 'UTC', max_concurrency: 1 };
  const r = await api(srv.baseUrl, 'POST', '/campaigns', { token, body: { ...body, webhook_url: 'http://169.254.169.254/latest/meta-data/' } });
  t.equal(r.status, 400);
  t.equal(r.body.code, 'address_not_allowed');
  t.same(r.body.fields.map((f: { path: string }) => f.path), ['body.webhook_url']);
  const ok = await api(srv.baseUrl, 'POST', '/campaigns', { token, body: { ...body, webhook_url: 'https://hooks.example.com/c' } });
  t.equal(ok.status, 201, 'a public name is accepted');
});

t.test('user:password@ in a webhook URL is refused at validation', async (t) => {
  const r = await api(srv.baseUrl, 'POST', '/calls/dispatch', { headers: key, body: { to: '+15005550001', agent_id: 'default', webhook_url: 'https://user:pass@hooks.example.com/h' } });
  t.equal(r.status, 400);
  t.equal(r.body.code, 'validation_failed');
  t.match(r.body.fields[0], { path: 'body.webhook_url', message: /user name or password/ });
});

t.test('a name that resolves to a refused address: the delivery fails at once with the reason, not retried', async (t) => {
  // A customer's DNS name pointing at 127.0.0.1 passes validation (names are judged when connecting); the system
  // resolver answers loopback for `localhost`, so an outbox row to it stands for such a name.
  const callId = `call_${'cd'.repeat(12)}`;
  await srv.services.db.query(`INSERT INTO calls (id, tenant_id, agent, to_number, language, status, webhook_url) VALUES ($1, $2, '{}', '+15005550001', 'en-US', 'completed', $3)`,
    [callId, DEV_TENANT_ID, `http://localhost:${port}/hook`]);
  await srv.services.callEngine.outbox.enqueue(srv.services.db, { tenantId: DEV_TENANT_ID, callId, url: `http://localhost:${port}/hook`, eventType: 'call.completed', payload: { call_id: callId } });
  srv.services.callEngine.deliverer.kick();
  let log;
  for (let i = 0; i < 200; i++) {
    log = await api(srv.baseUrl, 'GET', `/calls/${callId}/webhooks`, { headers: key });
    if (log.body.data[0]?.state !== 'pending') break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const hook = log!.body.data[0];
  t.equal(hook.state, 'failed', 'final');
  t.equal(hook.attempts, 1, 'not retried');
  t.match(hook.log[0].error, /^refused: localhost resolves to a refused address (127\.0\.0\.1|::1) \(loopback\)$/);
  t.equal(hook.log[0].status_code, null);
  t.same(hits, [], 'nothing reached the receiver');
});
