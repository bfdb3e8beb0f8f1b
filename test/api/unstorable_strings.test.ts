/**
 * A NUL (\u0000) in any stored string gave 500 internal, even unauthenticated, and a lone UTF-16 surrogate gave
 * 500 on leads, dispatch and campaigns: PostgreSQL stores neither. Both are refused before any route runs, as
 * 400 validation_failed naming the field, for bodies, query strings and paths, on every route of the table.
 */
import t, { type Test } from 'tap';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const token = await login(srv.baseUrl);
const key = { 'x-api-key': API_KEY };
const NUL = '\u0000';
const LONE = '\ud800';

/** JSON.stringify keeps both as \u escapes, which is how a client sends them. */
const raw = (body: unknown) => ({ raw: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

function refused(t: Test, r: Awaited<ReturnType<typeof api>>, field: string) {
  t.equal(r.status, 400, `${field}: 400`);
  t.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
  t.equal(r.body?.code, 'validation_failed');
  t.same(r.body?.fields?.map((f: { path: string }) => f.path), [field]);
}

const agent = { name: 'A', disclosure_script: 'This is an AI call.', qualify_script: [{ field: 'budget', question: 'Budget?' }], role: 'r', voice: 'v', language: 'en-US', interruption_sensitivity: 0.3, turn_detection_timeout_ms: 700 };
const campaign = { name: 'c', agent_id: 'default', contacts: [{ phone: '+14155550123' }], timezone: 'UTC', max_concurrency: 1 };

for (const [label, bad] of [['NUL', NUL], ['lone surrogate', LONE]] as const) {
  t.test(`${label} in request bodies`, async (t) => {
    const conv = await api(srv.baseUrl, 'POST', '/conversations', { body: {} });
    const cases: Array<[string, string, Record<string, unknown>, string, Record<string, string> | undefined]> = [
      ['POST', '/conversations', { domain: `real${bad}estate` }, 'body.domain', undefined], // unauthenticated
      ['POST', `/conversations/${conv.body.id}/turns`, { text: `hello${bad}` }, 'body.text', undefined],
      ['POST', '/leads', { name: `Lee${bad}`, phone: '+919812345678', source: 'web', domain: 'realestate' }, 'body.name', key],
      ['POST', '/calls/dispatch', { to: '+15005550001', agent_id: 'default', context: { [`k${bad}`]: 'v' } }, `body.context.k${bad === NUL ? '\\u0000' : '\\ud800'}`, key],
      ['POST', '/calls/dispatch', { to: '+15005550001', agent_id: 'default', context: { k: `v${bad}` } }, 'body.context.k', key],
      ['PUT', '/agents/a1', { ...agent, role: `r${bad}` }, 'body.role', undefined],
      ['POST', '/campaigns', { ...campaign, name: `c${bad}` }, 'body.name', undefined],
      ['POST', '/api-keys', { name: `k${bad}` }, 'body.name', undefined],
      ['POST', '/dnd/import', { numbers: ['+919812345678', `+91981234567${bad}`] }, 'body.numbers.1', key],
      ['POST', '/auth/login', { email: 'dev@example.com', password: `x${bad}` }, 'body.password', undefined],
    ];
    for (const [method, path, body, field, headers] of cases) {
      const r = await api(srv.baseUrl, method, path, { ...raw(body), headers: { 'content-type': 'application/json', ...(headers ?? { authorization: `Bearer ${token}` }) } });
      refused(t, r, field);
    }
  });
}

t.test('NUL in query strings and paths', async (t) => {
  refused(t, await api(srv.baseUrl, 'GET', '/dnd/check?phone=%2B9198%0012345678', { headers: key }), 'query.phone');
  refused(t, await api(srv.baseUrl, 'GET', '/calls?agent_id=a%00b', { headers: key }), 'query.agent_id');
  refused(t, await api(srv.baseUrl, 'GET', '/calls/call_%00', { headers: key }), 'path');
  refused(t, await api(srv.baseUrl, 'DELETE', '/dnd/%2B91%0098', { token }), 'path');
  refused(t, await api(srv.baseUrl, 'GET', '/conversations/conv_%00'), 'path');
  refused(t, await api(srv.baseUrl, 'GET', '/calls/%ED%A0%80', { headers: key }), 'path'); // a surrogate's UTF-8 bytes: not UTF-8
});

t.test('every route of the table, present and future: a bad key in the body, a NUL in each path parameter', async (t) => {
  const routes = srv.table.specs;
  t.ok(routes.length > 40);
  for (const s of routes) {
    const path = s.path.replace(/:[a-z_]+/g, 'x%00y');
    const headers = { authorization: `Bearer ${token}` };
    if (s.path.includes(':')) refused(t, await api(srv.baseUrl, s.method.toUpperCase(), path, { headers }), 'path');
    if (s.method !== 'get' && s.method !== 'delete') {
      const r = await api(srv.baseUrl, s.method.toUpperCase(), s.path.replace(/:[a-z_]+/g, 'x'), { ...raw({ nested: [{ [`a${NUL}`]: 1 }] }), headers: { 'content-type': 'application/json', ...headers } });
      refused(t, r, 'body.nested.0.a\\u0000');
    }
  }
  const health = await api(srv.baseUrl, 'GET', '/health');
  t.equal(health.status, 200, 'the process is fine');
});

t.test('well-formed text passes: pairs, other control characters, non-Latin scripts', async (t) => {
  const r = await api(srv.baseUrl, 'POST', '/conversations', { body: { domain: 'realestate' } });
  const turn = await api(srv.baseUrl, 'POST', `/conversations/${r.body.id}/turns`, { body: { text: 'नमस्ते 😀 tab\there' } });
  t.equal(turn.status, 200);
});
