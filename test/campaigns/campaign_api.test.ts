/**
 * /v1/campaigns: validation, roles (operator writes, any role reads), tenant isolation, the state machine
 * (draft -> running <-> paused, -> canceled; 409 on illegal moves, also under concurrent requests) and progress.
 */
import t from 'tap';
import { startTestServer, api, login, API_KEY } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';

const srv = await startTestServer({ env: { CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' } });
t.teardown(() => srv.close());
const admin = await login(srv.baseUrl);
const other = await makeTenant(srv, 'cmp');
const base = {
  name: 'spring', agent_id: 'default', timezone: 'Asia/Kolkata', max_concurrency: 2,
  contacts: [{ phone: '+919811110001', context: { customer_name: 'Asha' } }, { phone: '+919811110002' }, { phone: '+919811110001' }],
};
const post = (path: string, token: string, body?: unknown) => api(srv.baseUrl, 'POST', path, { token, body });

t.test('create: defaults, duplicates merged, draft', async (t) => {
  const r = await post('/campaigns', admin, base);
  t.equal(r.status, 201);
  t.match(r.body, { state: 'draft', calling_window: { start: '09:00', end: '21:00' }, retry: { max_attempts: 1, on: ['no_answer', 'busy'] }, progress: { total: 2, pending: 2 } });
  t.match(r.body.id, /^cmp_[0-9a-f]{24}$/);
  const viaKey = await api(srv.baseUrl, 'POST', '/campaigns', { headers: { 'x-api-key': API_KEY }, body: base });
  t.equal(viaKey.status, 201, 'the service API key (operator) may create');
});

t.test('create: validation', async (t) => {
  const bad: Array<[string, unknown]> = [
    ['bad phone', { ...base, contacts: [{ phone: '98111' }] }],
    ['no contacts', { ...base, contacts: [] }],
    ['bad time zone', { ...base, timezone: 'Mars/Olympus' }],
    ['bad window', { ...base, calling_window: { start: '9am', end: '21:00' } }],
    ['empty window', { ...base, calling_window: { start: '10:00', end: '10:00' } }],
    ['zero concurrency', { ...base, max_concurrency: 0 }],
    ['unknown retry outcome', { ...base, retry: { max_attempts: 2, backoff_minutes: 5, on: ['completed'] } }],
    ['unknown field', { ...base, priority: 1 }],
    ['unknown tool', { ...base, tools: ['teleport'] }],
    ['unknown agent', { ...base, agent_id: 'ghost' }],
  ];
  for (const [name, body] of bad) {
    const r = await post('/campaigns', admin, body);
    t.equal(r.status, 400, name);
    t.equal(r.body.code, 'validation_failed', `${name}: code`);
  }
});

t.test('state machine with 409 on illegal moves', async (t) => {
  const id = (await post('/campaigns', admin, base)).body.id;
  const step = async (action: string, status: number, state?: string) => {
    const r = await post(`/campaigns/${id}/${action}`, admin);
    t.equal(r.status, status, `${action} -> ${status}`);
    if (state) t.equal(r.body.state, state);
    if (status === 409) t.equal(r.body.code, 'conflict');
  };
  await step('pause', 409);
  await step('resume', 409);
  await step('start', 200, 'running');
  await step('start', 409);
  await step('resume', 409);
  await step('pause', 200, 'paused');
  await step('pause', 409);
  await step('resume', 200, 'running');
  await step('cancel', 200, 'canceled');
  await step('cancel', 409);
  await step('start', 409);
  const g = await api(srv.baseUrl, 'GET', `/campaigns/${id}`, { token: admin });
  t.match(g.body, { state: 'canceled', progress: { canceled: 2, total: 2 } });
  t.ok(g.body.started_at && g.body.finished_at);
});

t.test('concurrent starts: exactly one wins', async (t) => {
  const id = (await post('/campaigns', admin, base)).body.id;
  const rs = await Promise.all(Array.from({ length: 5 }, () => post(`/campaigns/${id}/start`, admin)));
  t.same(rs.map((r) => r.status).sort(), [200, 409, 409, 409, 409]);
});

t.test('roles and tenant isolation', async (t) => {
  const id = (await post('/campaigns', admin, base)).body.id;
  t.equal((await api(srv.baseUrl, 'GET', `/campaigns/${id}`, { token: other.adminToken })).status, 404, 'other tenant cannot see it');
  t.equal((await post(`/campaigns/${id}/start`, other.operatorToken)).status, 404, 'nor start it');
  const mine = await post('/campaigns', other.operatorToken, base);
  t.equal(mine.status, 201, 'operators create');
  const list = await api(srv.baseUrl, 'GET', '/campaigns', { token: other.operatorToken });
  t.same(list.body.data.map((c: { id: string }) => c.id), [mine.body.id], 'list is tenant-scoped');
  t.equal((await api(srv.baseUrl, 'GET', '/campaigns/nope', { token: admin })).status, 400);
  t.equal((await api(srv.baseUrl, 'GET', '/campaigns')).status, 401);
});
