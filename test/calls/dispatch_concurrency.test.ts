/**
 * The per-tenant concurrency limit is exact when many dispatches race (dispatch_call: lock, then a fresh count),
 * tenants do not share a limit, and a dispatched call is linked both ways with its conversation, has its first
 * transition and its queued status item.
 */
import t from 'tap';
import pg from 'pg';
import { API_KEY, api, startTestServer } from '../helpers/server.js';

const LIMIT = 4;
const srv = await startTestServer({ env: { MAX_CONCURRENT_CALLS_PER_TENANT: String(LIMIT) } });
t.teardown(() => srv.close());
const auth = { headers: { 'x-api-key': API_KEY } };
const other = await srv.services.repos.tenants.createTenant('Other tenant');
await srv.services.repos.agents.put(other, 'default', (await srv.services.repos.agents.get('ten_dev', 'default'))!);
const otherAuth = { headers: { 'x-api-key': (await srv.services.repos.tenants.createApiKey(other, 'k', 'operator')).key } };

t.test('racing dispatches: exactly the limit succeeds, per tenant', async (t) => {
  // a cooperative callee: the calls stay active for the whole test
  const body = { to: '+14155550123', agent_id: 'default' };
  const fire = (a: typeof auth) => Array.from({ length: 6 * LIMIT }, () => api(srv.baseUrl, 'POST', '/calls/dispatch', { ...a, body }));
  const [mine, theirs] = await Promise.all([Promise.all(fire(auth)), Promise.all(fire(otherAuth))]);
  for (const [name, rs] of [['dev', mine], ['other', theirs]] as const) {
    t.equal(rs.filter((r) => r.status === 201).length, LIMIT, `${name}: ${LIMIT} dispatched`);
    t.equal(rs.filter((r) => r.status === 429 && r.body.code === 'concurrency_limited').length, 5 * LIMIT, `${name}: the rest refused`);
  }
  const created = mine.filter((r) => r.status === 201).map((r) => r.body);
  const c = created[0];
  t.equal(c.status, 'dialing', 'stored dialing: the runner dials it at once (migration 050)');
  t.match(c.conversation_id, /^conv_/);
  const conv = await srv.services.db.query<{ call_id: string; tenant_id: string }>('SELECT call_id, tenant_id FROM conversations WHERE id = $1', [c.conversation_id]);
  t.same(conv.rows[0], { call_id: c.id, tenant_id: 'ten_dev' }, 'conversation -> call');
  const first = await srv.services.db.query<{ to_status: string; reason: string }>(
    'SELECT to_status, reason FROM call_lifecycle WHERE call_id = $1 ORDER BY era, pos LIMIT 1', [c.id]);
  t.same(first.rows[0], { to_status: 'queued', reason: 'dispatched' });
  const ev = await srv.services.db.query<{ type: string; payload: { status: string } }>('SELECT type, payload FROM call_events WHERE call_id = $1 AND seq = 1', [c.id]);
  t.same(ev.rows[0], { type: 'status', payload: { status: 'queued', ended_reason: null } }, 'queued status item stored');
  const active = await srv.services.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM calls WHERE tenant_id = 'ten_dev' AND status IN ('queued', 'dialing', 'ringing', 'in_progress')`);
  t.equal(active.rows[0].n, LIMIT, 'never more active calls than the limit');
  for (const r of [...mine, ...theirs].filter((x) => x.status === 201)) {
    await api(srv.baseUrl, 'POST', `/calls/${r.body.id}/hangup`, r.body.id && mine.includes(r) ? auth : otherAuth);
  }
});

t.test('the limit holds against many simultaneous dispatches on the service itself', async (t) => {
  const tenant = await srv.services.repos.tenants.createTenant('Racing tenant');
  await srv.services.repos.agents.put(tenant, 'default', (await srv.services.repos.agents.get('ten_dev', 'default'))!);
  for (let round = 0; round < 3; round++) {
    const rs = await Promise.allSettled(Array.from({ length: 60 }, () => srv.services.calls.dispatch(tenant, { to: '+14155550123' })));
    const ok = rs.filter((r) => r.status === 'fulfilled');
    t.equal(ok.length, round === 0 ? LIMIT : 0, `round ${round}: ${ok.length} dispatched`);
    t.ok(rs.every((r) => r.status === 'fulfilled' || (r.reason as { code?: string }).code === 'concurrency_limited'));
  }
  const calls = await srv.services.calls.list(tenant, { limit: 200 });
  for (const c of calls.data) await srv.services.calls.hangup(tenant, c.id);
});

t.test('dispatch_call waits for a racing dispatch and counts its call (PostgreSQL, deterministic)', { skip: srv.databaseUrl ? false : 'PGlite has one connection' }, async (t) => {
  const tenant = await srv.services.repos.tenants.createTenant('Lock tenant');
  await srv.services.repos.agents.put(tenant, 'default', (await srv.services.repos.agents.get('ten_dev', 'default'))!);
  const [a, b] = [new pg.Client({ connectionString: srv.databaseUrl }), new pg.Client({ connectionString: srv.databaseUrl })];
  await a.connect();
  await b.connect();
  t.teardown(async () => { await a.end(); await b.end(); });
  const call = (c: pg.Client, id: string) => c.query<{ o_outcome: string }>(
    `SELECT o_outcome FROM dispatch_call($1, $2, 'default', NULL, NULL, '+14155550123', NULL, '{}', '[]', NULL, NULL, $3, NULL, NULL, NULL, 'test', 1)`,
    [id, tenant, `conv_${id.slice(5)}`]);
  await a.query('BEGIN');
  t.equal((await call(a, 'call_aaaaaaaaaaaaaaaaaaaaaaaa')).rows[0].o_outcome, 'ok', 'A dispatches (not committed yet)');
  let bDone = false;
  const bResult = call(b, 'call_bbbbbbbbbbbbbbbbbbbbbbbb').then((r) => { bDone = true; return r.rows[0].o_outcome; });
  await new Promise((r) => setTimeout(r, 300));
  t.notOk(bDone, 'B waits for the tenant lock while A is open');
  await a.query('COMMIT');
  t.equal(await bResult, 'concurrency_limited', "B's count sees A's committed call: the limit of 1 holds");
});


t.test('one batch mixes tenants, inline agents and refusals; each dispatch gets its own answer', async (t) => {
  const a = await srv.services.repos.tenants.createTenant('Batch tenant A');
  const b = await srv.services.repos.tenants.createTenant('Batch tenant B');
  const c = await srv.services.repos.tenants.createTenant('Batch tenant C');
  const agent = (await srv.services.repos.agents.get('ten_dev', 'default'))!;
  await srv.services.repos.agents.put(a, 'default', agent);
  await srv.services.repos.agents.put(c, 'default', agent);
  const inline = { role: 'sales', voice: 'asha', language: 'en-IN', interruption_sensitivity: 0.5, turn_detection_timeout_ms: 700 };
  // pushed in one tick: they share batches. Two batches may be in flight at once (the first call goes alone) and
  // either can take a tenant's lock first, so which of a tenant's calls a full limit refuses is a race: the call
  // whose stored fields are checked below goes to tenant C, outside A's contest (on A it was at times the refused one).
  const rs = await Promise.allSettled([
    srv.services.calls.dispatch(c, { to: '+14155550123', context: { k: 'v' }, webhook_url: 'https://example.com/h' }),
    srv.services.calls.dispatch(b, { to: '+14155550123' }), // B stored no agent: nothing to dispatch with
    srv.services.calls.dispatch(b, { to: '+14155550124', agent: inline, language: 'hi-IN' }),
    srv.services.calls.dispatch(a, { to: '+14155550125', agent_id: 'nope' }),
    ...Array.from({ length: LIMIT + 3 }, () => srv.services.calls.dispatch(a, { to: '+14155550126' })),
  ]);
  const code = (r: PromiseSettledResult<unknown>) => (r.status === 'fulfilled' ? 'ok' : (r.reason as { code: string }).code);
  t.equal(code(rs[0]), 'ok');
  t.equal(code(rs[1]), 'not_found', 'B has no agent');
  t.equal(code(rs[2]), 'ok', 'inline agent settings need no agent row');
  t.equal(code(rs[3]), 'not_found', 'unknown agent of A');
  const aOk = rs.filter((r, i) => i >= 3 && code(r) === 'ok').length;
  t.equal(aOk, LIMIT, "A's limit holds inside batches");
  t.equal(rs.slice(4).filter((r) => code(r) === 'concurrency_limited').length, 3, 'the rest of A refused');
  const first = (rs[0] as PromiseFulfilledResult<{ id: string; context: unknown; webhook_url: string }>).value;
  t.same([first.context, first.webhook_url], [{ k: 'v' }, 'https://example.com/h']);
  const inl = (rs[2] as PromiseFulfilledResult<{ id: string }>).value;
  const stored = await srv.services.calls.get(b, inl.id);
  t.equal(stored.language, 'hi-IN');
  t.notOk(await srv.services.calls.get(a, inl.id).catch(() => undefined), 'tenant A cannot read B\'s call');
  const owner = (id: string) => (id === inl.id ? b : id === first.id ? c : a);
  for (const r of rs) if (r.status === 'fulfilled') await srv.services.calls.hangup(owner((r.value as { id: string }).id), (r.value as { id: string }).id).catch(() => {});
});
