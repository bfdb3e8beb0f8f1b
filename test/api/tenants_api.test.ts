/**
 * POST /v1/tenants: admins of the platform tenant (PLATFORM_TENANT_ID, default ten_dev) create tenants through the
 * running service; nobody else can, an email already registered is 409 with nothing left behind (never a takeover
 * of that user), and the new admin sees only the new tenant.
 */
import t from 'tap';
import { api, login, startTestServer } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const b = srv.baseUrl;
const platformAdmin = await login(b);
const body = (email: string) => ({ name: 'Acme Realty', admin_email: email, admin_password: 'acme-admin-password' });
const tenantCount = async () => (await srv.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tenants')).rows[0].n;

t.test('a platform admin creates a tenant whose admin signs in to it alone', async (t) => {
  const r = await api(b, 'POST', '/tenants', { token: platformAdmin, body: body('owner@acme.test') });
  t.equal(r.status, 201);
  t.match(r.body, { tenant_id: /^ten_[0-9a-f]{24}$/, name: 'Acme Realty', admin_user_id: /^usr_/ });
  const acme = await api(b, 'POST', '/auth/login', { body: { email: 'owner@acme.test', password: 'acme-admin-password' } });
  t.match(acme.body, { role: 'admin', tenant_id: r.body.tenant_id });
  const agents = await api(b, 'GET', '/agents', { token: acme.body.access_token });
  t.same(agents.body.data.map((a: { id: string }) => a.id), ['default'], 'with its default agent');
  t.equal((await api(b, 'POST', '/tenants', { token: acme.body.access_token, body: body('x@acme.test') })).status, 403, "the new tenant's admin is not a platform admin");
});

t.test('nobody else creates tenants', async (t) => {
  const other = await makeTenant(srv, 'plat');
  const before = await tenantCount();
  const byOtherAdmin = await api(b, 'POST', '/tenants', { token: other.adminToken, body: body('a@b.test') });
  t.equal(byOtherAdmin.status, 403);
  t.match(byOtherAdmin.body.detail, /only admins of the platform tenant \(ten_dev\)/);
  t.equal((await api(b, 'POST', '/tenants', { token: other.operatorToken, body: body('a@b.test') })).status, 403, 'an operator');
  t.equal((await api(b, 'POST', '/tenants', { body: body('a@b.test') })).status, 401, 'anonymous');
  t.equal((await api(b, 'POST', '/tenants', { headers: { 'x-api-key': 'test-service-api-key-0123456789' }, body: body('a@b.test') })).status, 401, 'an API key');
  t.equal(await tenantCount(), before, 'no tenant created');
});

t.test('an email already registered is 409 and leaves nothing behind', async (t) => {
  const before = await tenantCount();
  const r = await api(b, 'POST', '/tenants', { token: platformAdmin, body: body('dev@example.com') });
  t.equal(r.status, 409);
  t.equal(await tenantCount(), before, 'no orphan tenant');
  t.ok(await login(b), "the existing user's password is untouched");
  t.equal((await api(b, 'POST', '/tenants', { token: platformAdmin, body: { name: 'x' } })).status, 400, 'a body names the admin');
});

t.test('PLATFORM_TENANT_ID=none turns the route off', async (t) => {
  const off = await startTestServer({ env: { PLATFORM_TENANT_ID: 'none' } });
  t.teardown(() => off.close());
  const r = await api(off.baseUrl, 'POST', '/tenants', { token: await login(off.baseUrl), body: body('z@z.test') });
  t.equal(r.status, 403);
  t.match(r.body.detail, /turned off/);
});
