/**
 * X-Forwarded-For was believed from any loopback peer, so a local process picked the address rate limits count
 * and dodged them; now only proxies named by TRUST_PROXY are believed. Login limits were per address and email
 * only; a per-address limit across emails now stops password spraying (one password over many accounts).
 */
import t from 'tap';
import { api, DEV_EMAIL, DEV_PASSWORD, startTestServer } from '../helpers/server.js';
import { loadConfig } from '../../src/config.js';

const env = { LOGIN_ATTEMPTS_PER_MINUTE: '3', LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '5' };
const direct = await startTestServer({ env });
t.teardown(() => direct.close());
const proxied = await startTestServer({ env: { ...env, TRUST_PROXY: 'loopback' } });
t.teardown(() => proxied.close());
const login = (base: string, email: string, password: string, forwardedFor?: string) =>
  api(base, 'POST', '/auth/login', { body: { email, password }, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });

t.test('without TRUST_PROXY a forged X-Forwarded-For does not reset the count', async (t) => {
  for (const ip of ['1.1.1.1', '2.2.2.2', '3.3.3.3']) t.equal((await login(direct.baseUrl, DEV_EMAIL, 'wrong-password', ip)).status, 401);
  const r = await login(direct.baseUrl, DEV_EMAIL, 'wrong-password', '4.4.4.4');
  t.equal(r.status, 429, 'the peer (127.0.0.1) is the client');
  t.equal(r.body.code, 'rate_limited');
  t.ok(Number(r.headers.get('retry-after')) >= 1);
});

t.test('with TRUST_PROXY naming the proxy, its X-Forwarded-For is the client', async (t) => {
  for (const ip of ['1.1.1.1', '2.2.2.2', '3.3.3.3', '4.4.4.4']) t.equal((await login(proxied.baseUrl, DEV_EMAIL, 'wrong-password', ip)).status, 401, ip);
});

t.test('one address trying many emails is limited across them (password spraying)', async (t) => {
  for (let i = 0; i < 5; i++) t.equal((await login(proxied.baseUrl, `user${i}@example.com`, 'Spring2025!', '9.9.9.9')).status, 401);
  const r = await login(proxied.baseUrl, 'user5@example.com', 'Spring2025!', '9.9.9.9');
  t.equal(r.status, 429, 'the sixth email from that address');
  t.equal((await login(proxied.baseUrl, 'user5@example.com', 'Spring2025!', '8.8.8.8')).status, 401, 'another address is not affected');
});

t.test('successful logins do not use up the per-address budget', async (t) => {
  for (let i = 0; i < 8; i++) t.equal((await login(proxied.baseUrl, DEV_EMAIL, DEV_PASSWORD, '7.7.7.7')).status, 200);
  t.equal((await login(proxied.baseUrl, 'someone@example.com', 'x-wrong', '7.7.7.7')).status, 401);
});

t.test('TRUST_PROXY is validated at start-up', async (t) => {
  t.throws(() => loadConfig({ TRUST_PROXY: 'everyone' }), /TRUST_PROXY/);
  t.doesNotThrow(() => loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.10, loopback' }));
});
