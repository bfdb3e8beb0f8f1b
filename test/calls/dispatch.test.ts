/** Dispatch validation, tenant isolation, listing, hangup, concurrency limit, and the lifecycle's refusals. */
import t from 'tap';
import { API_KEY, api, startTestServer, waitForCallEnd } from '../helpers/server.js';
import { transition, IllegalTransition } from '../../src/calls/lifecycle.js';

const srv = await startTestServer({ env: { SIM_TIME_SCALE: '20', MAX_CONCURRENT_CALLS_PER_TENANT: '3' } });
t.teardown(() => srv.close());
const auth = { headers: { 'x-api-key': API_KEY } };
const other = await srv.services.repos.tenants.createTenant('Other tenant');
const otherKey = (await srv.services.repos.tenants.createApiKey(other, 'k', 'operator')).key;
const otherAuth = { headers: { 'x-api-key': otherKey } };

t.test('validation failures are 400 problem+json with field paths', async (t) => {
  const cases: Array<[unknown, string]> = [
    [{ to: '4155550123', agent_id: 'default' }, 'body.to'],
    [{ to: '+11234567890', agent_id: 'default' }, 'body.to'], // E.164-shaped, but no such US area code
    [{ to: '+4407700900123', agent_id: 'default' }, 'body.to'], // the national trunk 0 kept after the country code
    [{ to: '+14155550123', agent_id: 'default', language: 'english' }, 'body.language'],
    [{ to: '+14155550123', agent_id: 'default', context: { a: 1 } }, 'body.context.a'],
    [{ to: '+14155550123', agent_id: 'default', tools: ['rocket'] }, 'body.tools.0'],
    [{ to: '+14155550123', agent_id: 'default', webhook_url: 'ftp://x.example/' }, 'body.webhook_url'],
    [{ to: '+14155550123', agent_id: 'default', extra: 1 }, 'body'],
    [{ to: '+14155550123', agent: { role: 'x', voice: 'v', language: 'en-US', interruption_sensitivity: 2, turn_detection_timeout_ms: 700 } }, 'body.agent.interruption_sensitivity'],
  ];
  for (const [body, path] of cases) {
    const r = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body });
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.body.code, 'validation_failed');
    t.ok(r.body.fields.some((f: { path: string }) => f.path === path), `${path} in ${JSON.stringify(r.body.fields)}`);
  }
  t.equal((await api(srv.baseUrl, 'POST', '/calls/dispatch', { body: { to: '+14155550123' } })).status, 401);
  const unknown = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+14155550123', agent_id: 'nobody' } });
  t.equal(unknown.status, 404);
});

t.test('inline agent (client-library path) and tenant isolation', async (t) => {
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+15005550002',
    agent: { role: 'sales', voice: 'asha', language: 'en-IN', interruption_sensitivity: 0.5, turn_detection_timeout_ms: 700 } } });
  t.equal(d.status, 201);
  t.equal(d.body.language, 'en-IN');
  t.equal((await api(srv.baseUrl, 'GET', `/calls/${d.body.id}`, otherAuth)).status, 404, "another tenant's call is not found");
  t.equal((await api(srv.baseUrl, 'POST', `/calls/${d.body.id}/hangup`, otherAuth)).status, 404);
  const list = await api(srv.baseUrl, 'GET', '/calls', otherAuth);
  t.same(list.body.data, []);
  t.equal((await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...otherAuth, body: { to: '+14155550123', agent_id: 'default' } })).status, 404,
    "the dev tenant's agent is not the other tenant's");
  // ended before the concurrency test counts the tenant's active calls
  t.equal((await waitForCallEnd(srv.baseUrl, d.body.id, auth.headers, { timeoutMs: 15_000, pollMs: 50 })).status, 'busy');
});

t.test('list filters and cursor pagination', async (t) => {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+15005550003', agent_id: 'default' } })).body.id);
  // the runner fails them asynchronously (slow on a loaded machine): wait for each to end
  for (const id of ids) t.equal((await waitForCallEnd(srv.baseUrl, id, auth.headers, { timeoutMs: 15_000, pollMs: 50 })).status, 'failed', id);
  const p1 = await api(srv.baseUrl, 'GET', '/calls?limit=2', auth);
  t.equal(p1.body.data.length, 2);
  const p2 = await api(srv.baseUrl, 'GET', `/calls?limit=2&cursor=${p1.body.next_cursor}`, auth);
  t.ok(p2.body.data.length >= 1);
  t.notOk(p2.body.data.some((c: { id: string }) => p1.body.data.some((d: { id: string }) => d.id === c.id)), 'pages do not overlap');
  const failed = await api(srv.baseUrl, 'GET', '/calls?status=failed', auth);
  t.ok(failed.body.data.length >= 3 && failed.body.data.every((c: { status: string }) => c.status === 'failed'));
  t.equal((await api(srv.baseUrl, 'GET', '/calls?status=nope', auth)).status, 400);
});

t.test('concurrency limit -> 429 concurrency_limited; hangup frees the slot', async (t) => {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+14155550123', agent_id: 'default' } })).body.id);
  const over = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+14155550123', agent_id: 'default' } });
  t.equal(over.status, 429);
  t.equal(over.body.code, 'concurrency_limited');
  for (const id of ids) {
    const h = await api(srv.baseUrl, 'POST', `/calls/${id}/hangup`, auth);
    t.equal(h.status, 200);
  }
  for (const id of ids) t.ok(['completed', 'canceled'].includes((await waitForCallEnd(srv.baseUrl, id, auth.headers, { timeoutMs: 15_000, pollMs: 50 })).status));
  const again = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+15005550002', agent_id: 'default' } });
  t.equal(again.status, 201);
  const done = await api(srv.baseUrl, 'GET', `/calls/${ids[0]}`, auth);
  t.equal(done.body.ended_reason, 'hangup_api');
  t.equal((await api(srv.baseUrl, 'POST', `/calls/${ids[0]}/hangup`, auth)).status, 409, 'an ended call cannot be hung up');
});

t.test('lifecycle: illegal transitions refused, racing transitions: exactly one wins', async (t) => {
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+15005550002', agent_id: 'default' } });
  const id = d.body.id;
  t.equal((await waitForCallEnd(srv.baseUrl, id, auth.headers, { timeoutMs: 15_000, pollMs: 50 })).status, 'busy');
  const db = srv.services.db;
  await t.rejects(transition(db, 'ten_dev', id, 'busy', 'in_progress'), IllegalTransition);
  await t.rejects(transition(db, 'ten_dev', id, 'completed', 'queued'), IllegalTransition);
  t.equal(await transition(db, 'ten_dev', id, 'dialing', 'failed'), undefined, 'stale expectation changes nothing');
  // a fresh row raced by many transitions
  await db.query(`INSERT INTO calls (id, tenant_id, agent, to_number, language, status) VALUES ('call_aaaaaaaaaaaaaaaaaaaaaaaa', 'ten_dev', '{}', '+14155550123', 'en-US', 'dialing')`);
  const results = await Promise.all(['in_progress', 'busy', 'no_answer', 'failed', 'canceled'].map((to) =>
    transition(db, 'ten_dev', 'call_aaaaaaaaaaaaaaaaaaaaaaaa', 'dialing', to as 'busy')));
  t.equal(results.filter(Boolean).length, 1, 'exactly one transition won');
  const rows = await db.query('SELECT to_status FROM call_lifecycle WHERE call_id = $1', ['call_aaaaaaaaaaaaaaaaaaaaaaaa']);
  t.equal(rows.rows.length, 1, 'one transition');
});
