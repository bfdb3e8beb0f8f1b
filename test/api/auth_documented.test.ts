/**
 * What broke: the OpenAPI document said POST /v1/privacy/expire accepts any role's JWT; the service refused an
 * operator with 403 (a check in the handler the document did not know). x-auth and x-auth-accepts are generated
 * from the rule that enforces each route; here every documented route is called with each kind of credential and
 * must accept exactly the ones its document lists.
 */
import t from 'tap';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const adminJwt = await login(srv.baseUrl);
const other = await makeTenant(srv, 'authdoc');
const adminKey = (await api(srv.baseUrl, 'POST', '/api-keys', { token: adminJwt, body: { name: 'admin key', role: 'admin' } })).body.key as string;
const CREDENTIALS: Record<string, Record<string, string>> = {
  anonymous: {},
  operator_jwt: { authorization: `Bearer ${other.operatorToken}` },
  admin_jwt: { authorization: `Bearer ${adminJwt}` },
  operator_api_key: { 'x-api-key': API_KEY },
  admin_api_key: { authorization: `Bearer ${adminKey}` },
};
const doc = (await api(srv.baseUrl, 'GET', '/openapi.json')).body;

t.test('POST /v1/privacy/expire documents exactly what it enforces', async (t) => {
  const op = doc.paths['/v1/privacy/expire'].post;
  t.equal(op['x-auth'], 'admin JWT or API key (any role)');
  t.same(op['x-auth-accepts'], ['admin_jwt', 'operator_api_key', 'admin_api_key']);
  const refused = await api(srv.baseUrl, 'POST', '/privacy/expire', { headers: CREDENTIALS.operator_jwt });
  t.equal(refused.status, 403);
  t.match(refused.body.detail, /admin JWT or API key/);
});

/** The auth step refused it: 401, or 403 saying what the route needs (a handler's own 403, e.g. a bad recording signature, is not auth). */
const refusedByAuth = (r: { status: number; body: { detail?: string } }) => r.status === 401 || (r.status === 403 && /this route needs/.test(r.body?.detail ?? ''));

// Signing out ends the very credentials it is called with: that route goes last, after every other has used them.
const signsOut = (path: string) => path === '/v1/auth/sign-out';
const paths = Object.entries(doc.paths as Record<string, Record<string, { 'x-auth-accepts': string[]; 'x-websocket'?: boolean }>>)
  .sort(([x], [y]) => Number(signsOut(x)) - Number(signsOut(y)));
for (const [path, ops] of paths) {
  for (const [method, op] of Object.entries(ops)) {
    if (op['x-websocket']) continue;
    t.test(`${method.toUpperCase()} ${path}: ${op['x-auth-accepts'].join(', ')}`, async (t) => {
      const concrete = path.replace(/^\/v1/, '').replace(/\{[^}]+\}/g, 'zz_missing_1');
      for (const [kind, headers] of Object.entries(CREDENTIALS)) {
        const r = await api(srv.baseUrl, method.toUpperCase(), concrete, { headers, body: ['post', 'put', 'patch'].includes(method) ? {} : undefined });
        const documented = op['x-auth-accepts'].includes(kind);
        t.equal(!refusedByAuth(r), documented, `${kind}: ${documented ? 'accepted' : 'refused'} as documented (got ${r.status} ${r.body?.detail ?? ''})`);
      }
    });
  }
}
