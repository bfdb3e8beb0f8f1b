/** Anonymous demo requests are limited per client IP (DEMO_REQUESTS_PER_MINUTE); JWT callers are not. */
import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';

const srv = await startTestServer({ env: { DEMO_REQUESTS_PER_MINUTE: '3' } });
t.teardown(() => srv.close());
const b = srv.baseUrl;

t.test('the fourth anonymous request in a minute is refused with 429 and Retry-After', async (t) => {
  const c = await api(b, 'POST', '/conversations', { body: {} });
  t.equal(c.status, 201);
  t.equal((await api(b, 'POST', `/conversations/${c.body.id}/turns`, { body: { text: 'hello' } })).status, 200);
  t.equal((await api(b, 'GET', `/conversations/${c.body.id}`)).status, 200);
  const limited = await api(b, 'POST', `/conversations/${c.body.id}/turns`, { body: { text: 'hello again' } });
  t.equal(limited.status, 429);
  t.equal(limited.body.code, 'rate_limited');
  t.ok(Number(limited.headers.get('retry-after')) >= 1);
  t.equal((await api(b, 'POST', '/conversations', { body: {} })).status, 429);
});

t.test('tenant (JWT) demo traffic is not counted against the anonymous budget', async (t) => {
  const token = await login(b);
  for (let i = 0; i < 5; i++) t.equal((await api(b, 'POST', '/conversations', { token, body: {} })).status, 201);
});
