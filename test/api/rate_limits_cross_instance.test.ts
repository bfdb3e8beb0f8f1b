/**
 * What broke: behind a load balancer with two instances the anonymous demo allowed twice its documented rate and
 * failed logins twice theirs (each instance counted in its own memory). With REDIS_URL the counts are kept in
 * Redis: two instances together allow the documented numbers.
 */
import t from 'tap';
import { api, login, startTestServer } from '../helpers/server.js';

const skip = !process.env.DATABASE_URL || !process.env.REDIS_URL ? 'needs DATABASE_URL and REDIS_URL (two instances share a deployment only through them)' : '';
if (skip) t.plan(0, skip);
else await main();

async function main() {
  const env = { LOGIN_ATTEMPTS_PER_MINUTE: '4', LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '9', DEMO_REQUESTS_PER_MINUTE: '4', DEMO_TENANT_REQUESTS_PER_MINUTE: '3' };
  const a = await startTestServer({ env });
  t.teardown(() => a.close());
  const b = await startTestServer({ env, databaseUrl: a.databaseUrl });
  t.teardown(() => b.close());
  const token = await login(a.baseUrl); // before the address runs out of attempts below
  t.ok(a.services.rateLimits.shared && b.services.rateLimits.shared, 'both count in Redis');
  const both = [a.baseUrl, b.baseUrl];
  const wrongLogin = (base: string, email: string) => api(base, 'POST', '/auth/login', { body: { email, password: 'wrong-password' } });

  t.test('failed logins for one email: 4 per minute across both instances', async (t) => {
    const email = 'victim@limits.test';
    for (let i = 0; i < 4; i++) t.equal((await wrongLogin(both[i % 2], email)).status, 401, `attempt ${i + 1} on ${i % 2 ? 'B' : 'A'}`);
    for (const base of both) {
      const r = await wrongLogin(base, email);
      t.equal(r.status, 429, 'the fifth is refused, on either instance');
      t.ok(Number(r.headers.get('retry-after')) >= 1);
    }
  });

  t.test('failed logins per address across emails: 9 per minute across both instances', async (t) => {
    // every attempt counts against the address before its email's limit is checked: 6 did above (4 failed, 2 refused)
    for (let i = 0; i < 3; i++) t.equal((await wrongLogin(both[i % 2], `spray-${i}@limits.test`)).status, 401, `spray ${i + 1}`);
    t.equal((await wrongLogin(a.baseUrl, 'spray-x@limits.test')).status, 429, 'the tenth attempt from the address: refused on A');
    t.equal((await wrongLogin(b.baseUrl, 'spray-y@limits.test')).status, 429, 'and on B');
  });

  t.test('anonymous demo requests: 4 per minute per address across both instances', async (t) => {
    for (let i = 0; i < 4; i++) t.equal((await api(both[i % 2], 'POST', '/conversations', { body: {} })).status, 201, `request ${i + 1}`);
    for (const base of both) t.equal((await api(base, 'POST', '/conversations', { body: {} })).status, 429);
  });

  t.test('demo requests with a JWT: 3 per minute per tenant across both instances', async (t) => {
    for (let i = 0; i < 3; i++) t.equal((await api(both[i % 2], 'POST', '/conversations', { token, body: {} })).status, 201);
    t.equal((await api(b.baseUrl, 'POST', '/conversations', { token, body: {} })).status, 429);
  });
}
