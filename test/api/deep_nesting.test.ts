/**
 * What broke: `{"domain": [[[[…]]]]}` 100,000 levels deep (200 KB, under the body limit) kept the process busy for
 * 91 s on POST /v1/conversations (anonymous), and /v1/health waited the whole time; login and the inbound webhooks
 * were hit the same way. The unstorable-string walk copied the whole path at every level (quadratic). Now a body
 * nested deeper than 32 levels is refused with 400 before anything else runs, on every route.
 */
import t from 'tap';
import { request } from 'node:http';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { api, startTestServer } from '../helpers/server.js';
import { depthExceeded, MAX_JSON_DEPTH } from '../../src/api/json_depth.js';
import { findUnstorable } from '../../src/api/validate.js';

const srv = await startTestServer();
t.teardown(() => srv.close());

const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
const LEVELS = 100_000;
const HOSTILE = Buffer.from(`{"domain":${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}}`);

/** One request with a JSON body on a connection of its own (GET routes too: body-parser reads any method's body). */
function send(method: string, path: string, body: Buffer): Promise<{ status: number; type: string; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${srv.baseUrl}${path}`, { method, agent: false, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => {
        let json: any;
        try { json = JSON.parse(text); } catch { json = text; }
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

t.test('the depth scan: brackets in strings and escaped quotes do not count; the limit is exact', async (t) => {
  const nest = (d: number) => Buffer.from('['.repeat(d) + ']'.repeat(d));
  t.equal(depthExceeded(nest(MAX_JSON_DEPTH)), -1, `${MAX_JSON_DEPTH} levels pass`);
  t.equal(depthExceeded(nest(MAX_JSON_DEPTH + 1)), MAX_JSON_DEPTH, 'one more is refused, at the byte that opens it');
  t.equal(depthExceeded(Buffer.from(JSON.stringify({ a: '['.repeat(1000) }))), -1, 'brackets inside a string');
  t.equal(depthExceeded(Buffer.from(JSON.stringify({ a: '\\"[[[[', b: '"{{{{' }))), -1, 'escaped quotes and backslashes');
  t.equal(depthExceeded(Buffer.from(`{"a":"\\\\"${'['.repeat(40)}`)), 40, 'a string ending in an escaped backslash ends there');
  t.equal(depthExceeded(Buffer.from('{"a":"never closed [[[[[[[[')), -1, 'an unterminated string is the parser\'s to refuse');
  t.equal(depthExceeded(Buffer.from(`{"k":"${'\\"'.repeat(5000)}"}`)), -1, 'many escaped quotes');
});

t.test('the unstorable-string walk reports the right path at any depth', async (t) => {
  let v: unknown = 'x\u0000';
  for (let i = 0; i < 3; i++) v = [{ k: v }];
  t.same(findUnstorable(v, 'body'), { path: 'body.0.k.0.k.0.k', message: 'must not contain a NUL character (\\u0000)' });
  let deep: unknown = 'ok';
  for (let i = 0; i < LEVELS; i++) deep = [deep];
  t.equal(findUnstorable(deep, 'body'), undefined, `a ${LEVELS}-level value is walked (iteratively) without error`);
});

t.test(`${LEVELS} levels on every route of the table answer 400 while /v1/health stays live`, async (t) => {
  const routes = srv.table.specs.map((s) => ({ method: s.method.toUpperCase(), path: s.path.replace(/:[A-Za-z_]+/g, 'x1') }));
  t.ok(routes.some((r) => r.path === '/auth/login') && routes.some((r) => r.path === '/webhooks/crm') && routes.some((r) => r.path === '/webhooks/calendar'),
    'login and the inbound webhooks are in the table');
  t.equal((await api(srv.baseUrl, 'GET', '/health')).status, 200, 'healthy before (and fetch is loaded: its first use costs)');
  // the hostile client runs in a process of its own; the health request leaves as soon as its first body arrives
  const firstArrived = new Promise<void>((resolve) => srv.http.once('request', () => resolve()));
  const child = spawn(tsx, [fileURLToPath(new URL('./fixtures/send_bodies.ts', import.meta.url))], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c) => { out += c; });
  const done = once(child, 'exit');
  child.stdin.end(JSON.stringify({ base: srv.baseUrl, body: HOSTILE.toString(), routes }));
  await firstArrived;
  const t0 = performance.now();
  const health = await api(srv.baseUrl, 'GET', '/health');
  const healthMs = performance.now() - t0;
  t.equal(health.status, 200);
  // the bound is far from both sides: one such body froze the process for 91 s, and 80 refused ones parse in under
  // a second on a quiet machine (1.2 s under the suite's load, where a 1 s bound failed)
  t.ok(healthMs < 10_000, `/v1/health answered in ${Math.round(healthMs)} ms while ${routes.length} hostile bodies were in flight (liveness bound 10 s)`);
  t.same(await done, [0, null], 'the hostile client got every answer');
  const answers = JSON.parse(out) as Array<{ method: string; path: string; status: number; type: string; text: string }>;
  t.equal(answers.length, routes.length);
  for (const r of answers) {
    const where = `${r.method} ${r.path}`;
    t.equal(r.status, 400, `${where}: 400`);
    t.match(r.type, /^application\/problem\+json/, `${where}: problem+json`);
    t.match(JSON.parse(r.text), { code: 'validation_failed', fields: [{ path: 'body', message: /nested deeper than 32 levels/ }] }, `${where}: names the limit`);
  }
});

t.test('32 levels are still a body like any other: the route judges it', async (t) => {
  const ok = Buffer.from(`{"domain":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`);
  const r = await send('POST', '/conversations', ok);
  t.equal(r.status, 400);
  t.equal(r.json.fields[0].path, 'body.domain', 'refused by the schema (domain is a string), not by the depth limit');
  const fine = await send('POST', '/conversations', Buffer.from('{"domain":"realestate"}'));
  t.equal(fine.status, 201);
});

t.test('a JSON body in another charset than UTF-8 is refused (415), not misread', async (t) => {
  const body = Buffer.from('{"domain":"x"}', 'utf16le');
  const r = await new Promise<{ status: number; json: any }>((resolve, reject) => {
    const req = request(`${srv.baseUrl}/conversations`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json; charset=utf-16le', 'content-length': body.length } }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
  t.equal(r.status, 415);
  t.equal(r.json.code, 'unsupported_media_type');
});
