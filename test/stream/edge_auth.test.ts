import t from 'tap';
import { api, API_KEY, login, startTestServer } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { connect, insertCall, otherTenant, wsUrl } from './helpers.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const deps = srv.services;
const jwt = await login(srv.baseUrl);
const other = await otherTenant(deps);
const mine = await insertCall(deps, DEV_TENANT_ID);
const theirs = await insertCall(deps, other.tenantId);
await deps.callEvents.publish(DEV_TENANT_ID, mine, { type: 'transcript', speaker: 'agent', text: 'Hello, this is an AI assistant.', latencyMs: 120, partial: false });
await deps.callEvents.publish(other.tenantId, theirs, { type: 'entity', key: 'secret', value: 'theirs' });
const url = (callId: string, q = '') => wsUrl(srv.baseUrl, `/calls/${callId}/stream${q}`);

t.test('both token placements, JWT and API key, receive the call', async (t) => {
  const variants: Array<[string, string, Record<string, string>]> = [
    ['JWT in Authorization', url(mine), { authorization: `Bearer ${jwt}` }],
    ['JWT in access_token', url(mine, `?access_token=${jwt}`), {}],
    ['API key in Authorization', url(mine), { authorization: `Bearer ${API_KEY}` }],
    ['API key in access_token', url(mine, `?access_token=${encodeURIComponent(API_KEY)}`), {}],
  ];
  for (const [name, u, headers] of variants) {
    const { ws, c } = await connect(u, headers);
    t.ok(ws, `${name}: upgraded`);
    const [first] = await c!.until((g) => g.length >= 1, name);
    t.match(first, { type: 'transcript', call_id: mine, seq: 1, speaker: 'agent', text: 'Hello, this is an AI assistant.', latencyMs: 120, partial: false }, name);
    t.match(first.at, /Z$/);
    ws!.close();
  }
});

t.test('bad or missing tokens are refused with 401 problem+json', async (t) => {
  for (const [name, u, headers] of [
    ['no token', url(mine), {}],
    ['garbage JWT', url(mine), { authorization: 'Bearer aaa.bbb.ccc' }],
    ['unknown key in query', url(mine, '?access_token=not-a-key-123456'), {}],
    ['not Bearer', url(mine), { authorization: `Basic ${jwt}` }],
  ] as Array<[string, string, Record<string, string>]>) {
    const r = await connect(u, headers);
    t.equal(r.status, 401, name);
    t.equal(r.body.code, 'unauthenticated', name);
    t.notOk(JSON.stringify(r.body).includes(jwt), 'token not echoed');
  }
});

t.test('a listener never sees another tenant\'s call: 404 for foreign and unknown ids alike', async (t) => {
  const foreign = await connect(url(theirs), { authorization: `Bearer ${jwt}` });
  t.equal(foreign.status, 404);
  t.equal(foreign.body.code, 'not_found');
  const unknown = await connect(url('call_000000000000000000000000'), { authorization: `Bearer ${jwt}` });
  t.equal(unknown.status, 404);
  t.same({ ...foreign.body, detail: '' }, { ...unknown.body, detail: '' }, 'indistinguishable');
  const byKey = await connect(url(mine, `?access_token=${other.apiKey}`));
  t.equal(byKey.status, 404, "the other tenant's API key cannot open my call");
  const { ws, c } = await connect(url(theirs), { authorization: `Bearer ${other.token}` });
  const got = await c!.until((g) => g.length >= 1);
  t.equal(got[0].value, 'theirs', 'the owner tenant can');
  ws!.close();
});

t.test('bad after_seq is a 400 before the upgrade', async (t) => {
  for (const q of ['?after_seq=-1', '?after_seq=abc', '?after_seq=1.5', '?after_seq=99999999999']) {
    const r = await connect(url(mine, q), { authorization: `Bearer ${jwt}` });
    t.equal(r.status, 400, q);
    t.equal(r.body.code, 'validation_failed');
  }
});

t.test('history route: tenant-scoped, after_seq and limit', async (t) => {
  for (let i = 0; i < 4; i++) await deps.callEvents.publish(DEV_TENANT_ID, mine, { type: 'entity', key: `k${i}`, value: `v${i}` });
  const all = await api(srv.baseUrl, 'GET', `/calls/${mine}/events`, { token: jwt });
  t.equal(all.status, 200);
  t.same(all.body.data.map((m: any) => m.seq), [1, 2, 3, 4, 5]);
  t.equal(all.body.next_after_seq, 5);
  const page = await api(srv.baseUrl, 'GET', `/calls/${mine}/events?after_seq=2&limit=2`, { headers: { 'x-api-key': API_KEY } });
  t.same(page.body.data.map((m: any) => m.seq), [3, 4]);
  t.equal(page.body.next_after_seq, 4);
  t.equal((await api(srv.baseUrl, 'GET', `/calls/${theirs}/events`, { token: jwt })).status, 404);
  t.equal((await api(srv.baseUrl, 'GET', `/calls/${mine}/events`, {})).status, 401);
  t.equal((await api(srv.baseUrl, 'GET', `/calls/${mine}/events?after_seq=99999999999`, { token: jwt })).status, 400, 'beyond the seq range');
  const bad = await api(srv.baseUrl, 'GET', `/calls/${mine}/events?after_seq=x&bogus=1`, { token: jwt });
  t.equal(bad.status, 400);
  t.equal(bad.body.code, 'validation_failed');
});

t.test('the stream and history routes are in the OpenAPI document', async (t) => {
  const doc = await api(srv.baseUrl, 'GET', '/openapi.json');
  const paths = JSON.stringify(Object.keys(doc.body.paths ?? {}));
  t.match(paths, /calls\/\{id\}\/events/);
  t.match(paths, /calls\/\{id\}\/transfer/);
  t.match(JSON.stringify(doc.body), /stream/);
});

t.test('a JWT listener is closed with 4001 token_expired when its token expires', async (t) => {
  const { SignJWT } = await import('jose');
  const exp = Math.floor(Date.now() / 1000) + 2;
  const user = await deps.repos.tenants.createUser({ tenantId: DEV_TENANT_ID, email: 'short-lived@example.com', passwordHash: 'unused', role: 'operator' });
  const short = await new SignJWT({ tenant_id: DEV_TENANT_ID, role: 'operator' }).setProtectedHeader({ alg: 'HS256' })
    .setSubject(user!.id).setExpirationTime(exp).sign(new TextEncoder().encode(srv.config.jwtSecret));
  const { ws } = await connect(url(mine), { authorization: `Bearer ${short}` });
  const { code, reason } = await new Promise<{ code: number; reason: string }>((r) => ws!.once('close', (c, why) => r({ code: c, reason: String(why) })));
  t.same({ code, reason }, { code: 4001, reason: 'token_expired' });
  t.ok(Date.now() >= exp * 1000 - 50, 'not before the expiry');
  const again = await connect(url(mine), { authorization: `Bearer ${short}` });
  t.equal(again.status, 401, 'and cannot come back with it');
});
