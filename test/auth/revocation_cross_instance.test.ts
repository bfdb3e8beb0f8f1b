/**
 * Two instances sharing PostgreSQL and Redis: a user deleted, demoted or signed out on instance A loses every
 * token on instance B too, as soon as A's revocation message reaches B, although B had the user's token state
 * cached; an API key revoked on A stops on B the same way (no 5 s cache window). A second instance starting does
 * not revoke the tokens of the seeded admin.
 */
import t from 'tap';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { REVOCATION_CHANNEL } from '../../src/auth/revocation.js';
import { closed, connect, insertCall, wsUrl } from '../stream/helpers.js';

const skip = !process.env.DATABASE_URL || !process.env.REDIS_URL ? 'needs DATABASE_URL and REDIS_URL (two processes cannot share the embedded PGlite or the in-process bus)' : '';
if (skip) t.plan(0, skip);
else await main();

async function main() {
  const a = await startTestServer();
  t.teardown(() => a.close());
  const root = await login(a.baseUrl);
  const b = await startTestServer({ databaseUrl: a.databaseUrl });
  t.teardown(() => b.close());

  /**
   * Resolves once B has received the revocation message `match` accepts (other test files may share this Redis).
   * B's own handler subscribed at start, before this one, and the bus runs a channel's handlers in subscription
   * order: when this resolves, B has forgotten.
   */
  const revocationOnB = async (match: (m: { user?: string; api_keys?: true }) => boolean) => {
    let off: () => void = () => {};
    let heard: () => void = () => {};
    const got = new Promise<void>((resolve) => { heard = resolve; });
    off = await b.services.bus.subscribe(REVOCATION_CHANNEL, (m) => { if (match(m as { user?: string })) { off(); heard(); } });
    return { heard: got }; // wrapped: an async function returning the promise itself would wait for it
  };

  const userOnA = async (role: 'admin' | 'operator') => {
    const email = `x-${Math.random().toString(16).slice(2)}@cross.test`;
    const r = await api(a.baseUrl, 'POST', '/users', { token: root, body: { email, password: 'a-long-enough-password', role } });
    return { id: r.body.id as string, token: await login(a.baseUrl, email, 'a-long-enough-password') };
  };

  t.test('the seeded admin signed in on A before B started is still signed in, on both', async (t) => {
    t.equal((await api(a.baseUrl, 'GET', '/users', { token: root })).status, 200);
    t.equal((await api(b.baseUrl, 'GET', '/users', { token: root })).status, 200);
  });

  for (const [what, revoke] of [
    ['deleted', (id: string) => api(a.baseUrl, 'DELETE', `/users/${id}`, { token: root })],
    ['demoted', (id: string) => api(a.baseUrl, 'PATCH', `/users/${id}`, { token: root, body: { role: 'operator' } })],
    ['signed out by an admin', (id: string) => api(a.baseUrl, 'POST', `/users/${id}/sign-out`, { token: root })],
  ] as const) {
    t.test(`an admin ${what} on A loses their token on B at once`, async (t) => {
      const user = await userOnA('admin');
      t.equal((await api(b.baseUrl, 'GET', '/users', { token: user.token })).status, 200, 'works on B (and B caches it)');
      const { heard } = await revocationOnB((m) => m.user === user.id);
      t.ok([200, 204].includes((await revoke(user.id)).status), 'revoked on A');
      await heard;
      const r = await api(b.baseUrl, 'POST', '/api-keys', { token: user.token, body: { name: 'late', role: 'admin' } });
      t.equal(r.status, 401, 'refused on B');
      t.match(r.body.detail, /revoked/);
    });
  }

  t.test('signing oneself out on B ends the token on A, and an open stream on A', async (t) => {
    const user = await userOnA('operator');
    const callId = await insertCall(a.services, DEV_TENANT_ID);
    const { ws } = await connect(wsUrl(a.baseUrl, `/calls/${callId}/stream`), { authorization: `Bearer ${user.token}` });
    const end = closed(ws!);
    t.equal((await api(b.baseUrl, 'POST', '/auth/sign-out', { token: user.token })).status, 204);
    t.same(await end, { code: 4001, reason: 'token_revoked' }, "A closed the listener when B's message arrived");
    t.equal((await api(a.baseUrl, 'GET', '/calls', { token: user.token })).status, 401);
  });

  t.test('an API key revoked on A stops on B at once, though B had it cached', async (t) => {
    const created = await api(a.baseUrl, 'POST', '/api-keys', { token: root, body: { name: 'cross', role: 'operator' } });
    t.equal((await api(b.baseUrl, 'GET', '/calls', { headers: { 'x-api-key': created.body.key } })).status, 200, 'cached on B');
    const { heard } = await revocationOnB((m) => m.api_keys === true);
    t.equal((await api(a.baseUrl, 'DELETE', `/api-keys/${created.body.id}`, { token: root })).status, 204);
    await heard;
    t.equal((await api(b.baseUrl, 'GET', '/calls', { headers: { 'x-api-key': created.body.key } })).status, 401);
    t.equal((await api(b.baseUrl, 'GET', '/calls', { headers: { 'x-api-key': API_KEY } })).status, 200, 'other keys still work');
  });
}
