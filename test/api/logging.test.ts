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
  for (const l of reqLines) t.match(JSON.parse(l), { req: { id: /\S+/, method: /^[A-Z]+$/, url: /^\/v1\// }, res: { statusCode: Number }, responseTime: Number });
  t.ok(reqLines.some((l) => JSON.parse(l).req.url === '/v1/agents?access_token=[redacted]'), 'the URL is logged with its token scrubbed');
  t.ok(reqLines.some((l) => JSON.parse(l).res.statusCode === 401 && JSON.parse(l).level === 30), '4xx lines at info');
});

t.test('a caller-supplied request id is echoed', async (t) => {
  const r = await api(srv.baseUrl, 'GET', '/health', { headers: { 'x-request-id': 'abc-123' } });
  t.equal(r.headers.get('x-request-id'), 'abc-123');
  const a = await api(srv.baseUrl, 'GET', '/agents', { headers: { 'x-request-id': 'trace-42.a' } });
  t.equal(a.headers.get('x-request-id'), 'trace-42.a');
  const bad = await api(srv.baseUrl, 'GET', '/health', { headers: { 'x-request-id': 'has spaces; and more' } });
  t.match(bad.headers.get('x-request-id'), /^[0-9a-f-]{36}$/, 'a malformed id is replaced by a UUID');
  await new Promise((r) => setTimeout(r, 50));
  t.ok(lines.join('').split('\n').some((l) => l.includes('"id":"trace-42.a"') && l.includes('request completed')), 'the given id is in the log line');
  t.notOk(lines.join('').includes('"url":"/v1/health"'), 'health checks are not logged');
});

t.test('an unexpected error is a 500 problem without details, logged once with the request id', async (t) => {
  const express = (await import('express')).default;
  const { requestLog } = await import('../../src/api/request_log.js');
  const { errorHandler } = await import('../../src/api/problem.js');
  const { createLogger } = await import('../../src/log.js');
  const out: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (c: Buffer) => out.push(c.toString()));
  const log = createLogger('info', stream);
  const app = express();
  app.use(requestLog(log, { quiet: () => false }));
  app.get('/v1/boom', () => { throw new Error('boom: internal detail'); });
  app.use(errorHandler(log));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  t.teardown(() => server.close());
  const r = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/v1/boom`, { headers: { 'x-request-id': 'req-boom-1' } });
  const body = await r.json();
  t.equal(r.status, 500);
  t.match(r.headers.get('content-type'), /^application\/problem\+json/);
  t.equal(body.code, 'internal');
  t.notOk(/internal detail|at .*\.ts:/.test(JSON.stringify(body)), 'no error detail or stack in the response');
  await new Promise((r) => setTimeout(r, 20));
  const lines = out.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const err = lines.find((l) => l.msg === 'unhandled error');
  t.match(err, { level: 50, req: { id: 'req-boom-1', method: 'GET', url: '/v1/boom' }, err: { message: 'boom: internal detail' } });
  t.match(lines.find((l) => l.msg === 'request completed'), { level: 50, req: { id: 'req-boom-1' }, res: { statusCode: 500 } });
});
