import t from 'tap';
import { startTestServer, api, login, DEV_EMAIL, DEV_PASSWORD, API_KEY } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';

const srv = await startTestServer({ env: { LOGIN_ATTEMPTS_PER_MINUTE: '3' } });
t.teardown(() => srv.close());

t.test('login returns a tenant JWT with the documented claims', async (t) => {
  const r = await api(srv.baseUrl, 'POST', '/auth/login', { body: { email: DEV_EMAIL.toUpperCase(), password: DEV_PASSWORD } });
  t.equal(r.status, 200);
  t.same({ ...r.body, access_token: 'x' }, { access_token: 'x', token_type: 'Bearer', expires_in: 3600, role: 'admin', tenant_id: 'ten_dev' });
  const claims = JSON.parse(Buffer.from(r.body.access_token.split('.')[1], 'base64url').toString());
  t.match(claims, { tenant_id: 'ten_dev', role: 'admin', sub: /^usr_/ });
  t.ok(claims.exp > Date.now() / 1000);
});

t.test('wrong password is 401 and repeated failures are rate limited', async (t) => {
  const email = 'nobody-' + Date.now() + '@example.com';
  for (let i = 0; i < 3; i++) t.equal((await api(srv.baseUrl, 'POST', '/auth/login', { body: { email, password: 'wrong' } })).status, 401);
  const limited = await api(srv.baseUrl, 'POST', '/auth/login', { body: { email, password: 'wrong' } });
  t.equal(limited.status, 429);
  t.equal(limited.body.code, 'rate_limited');
  t.ok(Number(limited.headers.get('retry-after')) >= 1);
});

t.test('service API key from SERVICE_API_KEY and admin-created keys', async (t) => {
  const admin = await login(srv.baseUrl);
  const created = await api(srv.baseUrl, 'POST', '/api-keys', { token: admin, body: { name: 'crm', role: 'operator' } });
  t.equal(created.status, 201);
  t.match(created.body.key, /^vk_[0-9a-f]{8}_/);
  const list = await api(srv.baseUrl, 'GET', '/api-keys', { token: admin });
  t.notOk(JSON.stringify(list.body).includes(created.body.key), 'keys are never listed');
  t.notOk(JSON.stringify(list.body).includes(API_KEY), 'the env key is never listed');
  const row = await srv.services.db.query<{ key_hash: string }>('SELECT key_hash FROM api_keys WHERE id = $1', [created.body.id]);
  t.not(row.rows[0].key_hash, created.body.key, 'stored hashed');
  // An API key is not a JWT: admin routes refuse it.
  t.equal((await api(srv.baseUrl, 'GET', '/agents', { token: created.body.key })).status, 401);
  t.equal((await api(srv.baseUrl, 'GET', '/calls', { token: created.body.key })).status, 200, 'the key works (and is now cached)');
  t.equal((await api(srv.baseUrl, 'DELETE', `/api-keys/${created.body.id}`, { token: admin })).status, 204);
  t.equal((await api(srv.baseUrl, 'GET', '/calls', { token: created.body.key })).status, 401, 'a revoked key stops at once');
  t.equal((await api(srv.baseUrl, 'DELETE', `/api-keys/${created.body.id}`, { token: admin })).status, 404);
});

t.test('users: admin creates an operator; operators cannot manage users', async (t) => {
  const other = await makeTenant(srv, 'users');
  const list = await api(srv.baseUrl, 'GET', '/users', { token: other.adminToken });
  t.equal(list.body.data.length, 2);
  t.notOk(JSON.stringify(list.body).includes('scrypt'), 'no password hashes in responses');
  t.equal((await api(srv.baseUrl, 'POST', '/users', { token: other.operatorToken, body: { email: 'x@y.test', password: 'long-enough-password', role: 'admin' } })).status, 403);
  const dup = await api(srv.baseUrl, 'POST', '/users', { token: other.adminToken, body: { email: other.operatorEmail, password: 'long-enough-password', role: 'operator' } });
  t.equal(dup.status, 409);
  const devUsers = await api(srv.baseUrl, 'GET', '/users', { token: await login(srv.baseUrl) });
  t.notOk(JSON.stringify(devUsers.body).includes(other.operatorEmail), "another tenant's users are invisible");
});
