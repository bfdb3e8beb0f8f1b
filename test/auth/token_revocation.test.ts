/**
 * What broke: after DELETE /v1/users/<id> the deleted admin's JWT still created a permanent admin API key and a new
 * admin user (201 each), and a deleted operator's token still dispatched calls, for the rest of its hour. A user's
 * JWT now carries the user's token version, checked on every request: deleting the user, changing their role or
 * password, and signing them out (an admin for any user of the tenant, a user for themself) end every token they
 * hold at once, an open live stream included. Revoking an API key closes the streams it opened too. Runs on both
 * backends.
 */
import t from 'tap';
import { SignJWT } from 'jose';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { closed, connect, insertCall, wsUrl } from '../stream/helpers.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const b = srv.baseUrl;

/** A fresh user of `tenant` (through the API) and a token of theirs. */
async function userOf(adminToken: string, role: 'admin' | 'operator') {
  const email = `u-${Math.random().toString(16).slice(2)}@revoke.test`;
  const password = 'a-long-enough-password';
  const r = await api(b, 'POST', '/users', { token: adminToken, body: { email, password, role } });
  if (r.status !== 201) throw new Error(`create user: ${r.status}`);
  return { id: r.body.id as string, email, password, token: await login(b, email, password) };
}

const dispatch = (token: string) => api(b, 'POST', '/calls/dispatch', { token, body: { to: '+15005550006', agent_id: 'default' } });

t.test('a deleted admin can no longer create API keys or users; a deleted operator can no longer dispatch', async (t) => {
  const root = await login(b);
  const admin = await userOf(root, 'admin');
  const operator = await userOf(root, 'operator');
  t.equal((await api(b, 'GET', '/users', { token: admin.token })).status, 200, 'the admin works before');
  t.equal((await api(b, 'GET', '/calls', { token: operator.token })).status, 200, 'the operator works before (and is now cached)');
  t.equal((await api(b, 'DELETE', `/users/${admin.id}`, { token: root })).status, 204);
  t.equal((await api(b, 'DELETE', `/users/${operator.id}`, { token: root })).status, 204);
  const key = await api(b, 'POST', '/api-keys', { token: admin.token, body: { name: 'backdoor', role: 'admin' } });
  t.equal(key.status, 401, 'no API key');
  t.match(key.body, { code: 'unauthenticated', detail: /revoked/ });
  t.equal((await api(b, 'POST', '/users', { token: admin.token, body: { email: 'evil@revoke.test', password: 'a-long-enough-password', role: 'admin' } })).status, 401, 'no new admin');
  t.equal((await dispatch(operator.token)).status, 401, 'no call');
  const keys = await api(b, 'GET', '/api-keys', { token: root });
  t.notOk(keys.body.data.some((k: { name: string }) => k.name === 'backdoor'), 'nothing was created');
});

t.test('a role change revokes: the demoted admin signs in again as an operator', async (t) => {
  const root = await login(b);
  const admin = await userOf(root, 'admin');
  const r = await api(b, 'PATCH', `/users/${admin.id}`, { token: root, body: { role: 'operator' } });
  t.equal(r.status, 200);
  t.match(r.body, { id: admin.id, role: 'operator', email: admin.email });
  t.equal((await api(b, 'GET', '/users', { token: admin.token })).status, 401, 'the admin token is dead');
  const again = await api(b, 'POST', '/auth/login', { body: { email: admin.email, password: admin.password } });
  t.equal(again.body.role, 'operator');
  t.equal((await api(b, 'GET', '/users', { token: again.body.access_token })).status, 403, 'and is an operator now');
  t.equal((await api(b, 'GET', '/calls', { token: again.body.access_token })).status, 200);
});

t.test('a password change revokes; the new password signs in', async (t) => {
  const root = await login(b);
  const op = await userOf(root, 'operator');
  t.equal((await api(b, 'PATCH', `/users/${op.id}`, { token: root, body: { password: 'the-new-long-password' } })).status, 200);
  t.equal((await api(b, 'GET', '/calls', { token: op.token })).status, 401);
  t.equal((await api(b, 'POST', '/auth/login', { body: { email: op.email, password: op.password } })).status, 401, 'the old password is gone');
  t.ok(await login(b, op.email, 'the-new-long-password'));
});

t.test('an admin signs a user out everywhere; a user signs themself out', async (t) => {
  const root = await login(b);
  const op = await userOf(root, 'operator');
  const second = await login(b, op.email, op.password);
  t.equal((await api(b, 'POST', `/users/${op.id}/sign-out`, { token: root })).status, 204);
  t.equal((await api(b, 'GET', '/calls', { token: op.token })).status, 401, 'first session');
  t.equal((await api(b, 'GET', '/calls', { token: second })).status, 401, 'second session');
  const fresh = await login(b, op.email, op.password);
  t.equal((await api(b, 'GET', '/calls', { token: fresh })).status, 200, 'a new sign-in works');
  t.equal((await api(b, 'POST', '/auth/sign-out', { token: fresh })).status, 204);
  t.equal((await api(b, 'GET', '/calls', { token: fresh })).status, 401, 'signed out by themself');
  t.equal((await api(b, 'POST', '/auth/sign-out', { headers: { 'x-api-key': API_KEY } })).status, 401, 'an API key cannot sign out');
});

t.test('the routes guard their tenant and their caller', async (t) => {
  const root = await login(b);
  const other = await makeTenant(srv, 'revoke');
  const op = await userOf(root, 'operator');
  t.equal((await api(b, 'POST', `/users/${op.id}/sign-out`, { token: other.adminToken })).status, 404, "another tenant's admin cannot");
  t.equal((await api(b, 'PATCH', `/users/${op.id}`, { token: other.adminToken, body: { role: 'admin' } })).status, 404);
  t.equal((await api(b, 'DELETE', `/users/${op.id}`, { token: other.adminToken })).status, 404);
  t.equal((await api(b, 'GET', '/calls', { token: op.token })).status, 200, 'nothing happened to the user');
  t.equal((await api(b, 'POST', `/users/${op.id}/sign-out`, { token: op.token })).status, 403, 'an operator cannot sign others out');
  const me = JSON.parse(Buffer.from(root.split('.')[1], 'base64url').toString()).sub;
  t.equal((await api(b, 'PATCH', `/users/${me}`, { token: root, body: { role: 'operator' } })).status, 409, 'not your own role');
  t.equal((await api(b, 'PATCH', `/users/${op.id}`, { token: root, body: {} })).status, 400, 'a change names something');
});

t.test('a token that claims another role or tenant than the user has is refused', async (t) => {
  const root = await login(b);
  const op = await userOf(root, 'operator');
  const key = new TextEncoder().encode(srv.config.jwtSecret);
  const forged = (claims: Record<string, unknown>) => new SignJWT({ tenant_id: DEV_TENANT_ID, role: 'operator', ver: 0, ...claims })
    .setProtectedHeader({ alg: 'HS256' }).setSubject(op.id).setExpirationTime('1h').sign(key);
  t.equal((await api(b, 'GET', '/calls', { token: await forged({}) })).status, 200, 'the same claims as issued: fine');
  t.equal((await api(b, 'GET', '/users', { token: await forged({ role: 'admin' }) })).status, 401, 'another role');
  t.equal((await api(b, 'GET', '/calls', { token: await forged({ tenant_id: 'ten_other' }) })).status, 401, 'another tenant');
  t.equal((await api(b, 'GET', '/calls', { token: await forged({ ver: 1 }) })).status, 401, 'a version it never had');
  const legacy = await new SignJWT({ tenant_id: DEV_TENANT_ID, role: 'operator' }).setProtectedHeader({ alg: 'HS256' }).setSubject(op.id).setExpirationTime('1h').sign(key);
  t.equal((await api(b, 'GET', '/calls', { token: legacy })).status, 200, 'a token without a version is version 0');
  await api(b, 'POST', `/users/${op.id}/sign-out`, { token: root });
  t.equal((await api(b, 'GET', '/calls', { token: legacy })).status, 401, 'and the first revocation ends it');
});

t.test("an open live stream of a revoked user is closed (4001 token_revoked) and cannot come back", async (t) => {
  const root = await login(b);
  const op = await userOf(root, 'operator');
  const callId = await insertCall(srv.services, DEV_TENANT_ID);
  const url = wsUrl(b, `/calls/${callId}/stream`);
  const { ws } = await connect(url, { authorization: `Bearer ${op.token}` });
  t.ok(ws, 'listening');
  const keyListener = await connect(url, { authorization: `Bearer ${API_KEY}` });
  const end = closed(ws!);
  t.equal((await api(b, 'DELETE', `/users/${op.id}`, { token: root })).status, 204);
  t.same(await end, { code: 4001, reason: 'token_revoked' });
  t.equal((await connect(url, { authorization: `Bearer ${op.token}` })).status, 401, 'refused on reconnect');
  t.equal(keyListener.ws!.readyState, keyListener.ws!.OPEN, "others' listeners stay");
  keyListener.ws!.close();
});

t.test('an open live stream of a revoked API key is closed (4001 token_revoked); other keys keep theirs', async (t) => {
  const root = await login(b);
  const made = async (name: string) => (await api(b, 'POST', '/api-keys', { token: root, body: { name, role: 'operator' } })).body;
  const [doomed, kept] = [await made('doomed'), await made('kept')];
  const callId = await insertCall(srv.services, DEV_TENANT_ID);
  const url = wsUrl(b, `/calls/${callId}/stream`);
  const gone = await connect(url, { authorization: `Bearer ${doomed.key}` });
  const stays = await connect(url, { authorization: `Bearer ${kept.key}` });
  t.ok(gone.ws && stays.ws, 'both keys listening');
  const end = closed(gone.ws!);
  t.equal((await api(b, 'DELETE', `/api-keys/${doomed.id}`, { token: root })).status, 204);
  t.same(await end, { code: 4001, reason: 'token_revoked' });
  t.equal((await connect(url, { authorization: `Bearer ${doomed.key}` })).status, 401, 'refused on reconnect');
  t.equal(stays.ws!.readyState, stays.ws!.OPEN, 'the other key still listens');
  stays.ws!.close();
});

t.test('the routes are in the OpenAPI document', async (t) => {
  const doc = (await api(b, 'GET', '/openapi.json')).body;
  t.ok(doc.paths['/v1/auth/sign-out']?.post, 'POST /v1/auth/sign-out');
  t.ok(doc.paths['/v1/users/{id}/sign-out']?.post, 'POST /v1/users/{id}/sign-out');
  t.ok(doc.paths['/v1/users/{id}']?.patch, 'PATCH /v1/users/{id}');
  t.match(doc.paths['/v1/users/{id}'].delete.summary, /stops working at once/);
});
