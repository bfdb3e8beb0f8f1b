/**
 * Walks every declared route and socket: each protected one refuses missing, expired, tampered, alg-none,
 * foreign-key and wrong-role credentials; no list route shows another tenant's data.
 */
import t from 'tap';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { startTestServer, api, login, API_KEY } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const secret = new TextEncoder().encode(srv.config.jwtSecret);
const devToken = await login(srv.baseUrl);
const other = await makeTenant(srv, 'other');

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const now = Math.floor(Date.now() / 1000);
const expired = await new SignJWT({ tenant_id: 'ten_dev', role: 'admin' }).setProtectedHeader({ alg: 'HS256' })
  .setSubject('usr_x').setIssuedAt(now - 7200).setExpirationTime(now - 3600).sign(secret);
const [h, p, s] = devToken.split('.');
const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
const tampered = [h, b64({ ...claims, tenant_id: other.tenantId }), s].join('.');
const algNone = [b64({ alg: 'none', typ: 'JWT' }), b64({ ...claims }), ''].join('.');
const foreignKey = await new SignJWT({ tenant_id: 'ten_dev', role: 'admin' }).setProtectedHeader({ alg: 'HS256' })
  .setSubject('usr_x').setExpirationTime('1h').sign(new TextEncoder().encode('some-other-secret-of-enough-length!!'));

const concrete = (path: string) => path.replace(/:([A-Za-z_]+)/g, 'zz_missing_1');
const protectedRoutes = srv.table.specs.filter((r) => r.auth.kind === 'auth');

t.ok(protectedRoutes.length >= 5, 'the table declares protected routes');

for (const r of protectedRoutes) {
  const method = r.method.toUpperCase();
  const path = concrete(r.path);
  t.test(`${method} ${r.path}`, async (t) => {
    const cases: Array<[string, Record<string, string>, number]> = [
      ['no credentials', {}, 401],
      ['expired JWT', { authorization: `Bearer ${expired}` }, 401],
      ['tampered JWT', { authorization: `Bearer ${tampered}` }, 401],
      ['alg none JWT', { authorization: `Bearer ${algNone}` }, 401],
      ['JWT of another key', { authorization: `Bearer ${foreignKey}` }, 401],
      ['malformed header', { authorization: 'Token abc' }, 401],
      ['unknown API key', { 'x-api-key': 'vk_unknown_key_that_does_not_exist' }, 401],
    ];
    if (r.auth.kind === 'auth' && !r.auth.apiKey) cases.push(['service API key where only JWT is allowed', { authorization: `Bearer ${API_KEY}` }, 401]);
    if (r.auth.kind === 'auth' && r.auth.role === 'admin') cases.push(['operator JWT on an admin route', { authorization: `Bearer ${other.operatorToken}` }, 403]);
    for (const [name, headers, status] of cases) {
      const res = await api(srv.baseUrl, method, path, { headers, body: ['POST', 'PUT', 'PATCH'].includes(method) ? {} : undefined });
      t.equal(res.status, status, name);
      t.match(res.headers.get('content-type') ?? '', /application\/problem\+json/, `${name}: problem+json`);
      t.equal(res.body?.code, status === 401 ? 'unauthenticated' : 'forbidden', `${name}: code`);
    }
  });
}

for (const w of srv.table.sockets.filter((s) => s.auth.kind === 'auth')) {
  t.test(`WebSocket ${w.path} refuses missing and bad tokens`, async (t) => {
    for (const [name, url] of [['no token', ''], ['alg none', `?access_token=${algNone}`], ['expired', `?access_token=${expired}`]] as const) {
      const status = await new Promise<number>((resolve) => {
        const ws = new WebSocket(srv.baseUrl.replace(/^http/, 'ws') + concrete(w.path) + url);
        ws.on('unexpected-response', (_req, res) => { resolve(res.statusCode ?? 0); ws.terminate(); });
        ws.on('open', () => { resolve(101); ws.close(); });
        ws.on('error', () => resolve(-1));
      });
      t.equal(status, 401, name);
    }
  });
}

t.test('list routes never return another tenant\'s data', async (t) => {
  const marker = 'secretagent-' + Date.now();
  const put = await api(srv.baseUrl, 'PUT', `/agents/${marker}`, { token: devToken, body: {
    name: marker, disclosure_script: 'AI call.', qualify_script: [], role: 'r', voice: 'v', language: 'en-US',
    interruption_sensitivity: 0.5, turn_detection_timeout_ms: 800 } });
  t.equal(put.status, 201);
  const lists = srv.table.specs.filter((r) => r.method === 'get' && r.auth.kind === 'auth' && !r.path.includes(':'));
  for (const r of lists) {
    for (const token of [other.adminToken, other.operatorToken]) {
      const res = await api(srv.baseUrl, 'GET', r.path, { token });
      const text = JSON.stringify(res.body ?? '');
      t.notOk(text.includes(marker) || text.includes('ten_dev') || text.includes('dev@example.com'), `GET ${r.path} (${res.status}) shows nothing of the dev tenant`);
    }
  }
  const own = await api(srv.baseUrl, 'GET', '/agents', { token: devToken });
  t.ok(JSON.stringify(own.body).includes(marker), 'the owner sees its agent');
});
