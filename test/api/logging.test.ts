/** Passwords, tokens and API keys never reach the log; every request line carries a request id. */
import t from 'tap';
import { PassThrough } from 'node:stream';
import { startTestServer, api, login, DEV_PASSWORD, API_KEY } from '../helpers/server.js';

const lines: string[] = [];
const sink = new PassThrough();
sink.on('data', (c: Buffer) => lines.push(c.toString()));
const srv = await startTestServer({ env: { LOG_LEVEL: 'debug' }, logStream: sink });
t.teardown(() => srv.close());

t.test('secrets stay out of the log', async (t) => {
  const token = await login(srv.baseUrl);
  await api(srv.baseUrl, 'GET', '/agents', { token });
  await api(srv.baseUrl, 'GET', `/agents?access_token=${token}`);
  await api(srv.baseUrl, 'GET', '/api-keys', { headers: { 'x-api-key': API_KEY } });
  await api(srv.baseUrl, 'POST', '/auth/login', { body: { email: 'dev@example.com', password: 'wrong-' + DEV_PASSWORD } });
  await new Promise((r) => setTimeout(r, 50));
  const log = lines.join('');
  t.ok(log.length > 0, 'something was logged');
  for (const secret of [token, token.split('.')[2], DEV_PASSWORD, API_KEY, srv.config.jwtSecret]) t.notOk(log.includes(secret), 'secret absent');
  const reqLines = log.split('\n').filter((l) => l.includes('request completed'));
  t.ok(reqLines.length >= 4);
  for (const l of reqLines) t.match(JSON.parse(l), { req: { id: /\S+/ } });
});

t.test('a caller-supplied request id is echoed', async (t) => {
  const r = await api(srv.baseUrl, 'GET', '/health', { headers: { 'x-request-id': 'abc-123' } });
  t.equal(r.headers.get('x-request-id'), 'abc-123');
});
