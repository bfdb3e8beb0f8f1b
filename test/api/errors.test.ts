/** Bad input gets problem+json with a stable code; nothing stored is harmed by it. */
import t, { type Test } from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';

const srv = await startTestServer({ env: { JSON_BODY_LIMIT_BYTES: '2048' } });
t.teardown(() => srv.close());
const token = await login(srv.baseUrl);
const agent = { name: 'A', disclosure_script: 'This is an AI call.', qualify_script: [{ field: 'budget', question: 'Budget?' }], role: 'r', voice: 'v', language: 'en-US', interruption_sensitivity: 0.3, turn_detection_timeout_ms: 700 };

const isProblem = (t: Test, r: Awaited<ReturnType<typeof api>>, status: number, code: string) => {
  t.equal(r.status, status, `status ${status}`);
  t.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
  t.equal(r.body.code, code);
  t.equal(r.body.status, status);
  t.type(r.body.title, 'string');
  t.type(r.body.detail, 'string');
  t.notOk(JSON.stringify(r.body).includes('    at '), 'no stack trace');
};

t.test('malformed JSON', async (t) => {
  isProblem(t, await api(srv.baseUrl, 'PUT', '/agents/a1', { token, raw: '{"name": ', headers: { 'content-type': 'application/json' } }), 400, 'malformed_json');
});

t.test('wrong types and unknown fields name the field', async (t) => {
  const wrong = await api(srv.baseUrl, 'PUT', '/agents/a1', { token, body: { ...agent, interruption_sensitivity: 'high' } });
  isProblem(t, wrong, 400, 'validation_failed');
  t.ok(wrong.body.fields.some((f: { path: string }) => f.path === 'body.interruption_sensitivity'));
  const out = await api(srv.baseUrl, 'PUT', '/agents/a1', { token, body: { ...agent, interruption_sensitivity: 1.5 } });
  isProblem(t, out, 400, 'validation_failed');
  const unknown = await api(srv.baseUrl, 'PUT', '/agents/a1', { token, body: { ...agent, colour: 'blue' } });
  isProblem(t, unknown, 400, 'validation_failed');
  t.match(unknown.body.detail, /colour/);
  isProblem(t, await api(srv.baseUrl, 'PUT', '/agents/BAD ID', { token, body: agent }), 400, 'validation_failed');
  isProblem(t, await api(srv.baseUrl, 'PUT', '/agents/a1', { token, raw: '[1,2]', headers: { 'content-type': 'application/json' } }), 400, 'validation_failed');
  isProblem(t, await api(srv.baseUrl, 'POST', '/auth/login', { raw: 'null', headers: { 'content-type': 'application/json' } }), 400, 'malformed_json');
});

t.test('oversized body is 413 and the stored agent is untouched', async (t) => {
  t.equal((await api(srv.baseUrl, 'PUT', '/agents/keep', { token, body: agent })).status, 201);
  const big = { ...agent, disclosure_script: 'x'.repeat(5000) };
  isProblem(t, await api(srv.baseUrl, 'PUT', '/agents/keep', { token, body: big }), 413, 'payload_too_large');
  const list = await api(srv.baseUrl, 'GET', '/agents', { token });
  t.equal(list.body.data.find((a: { id: string }) => a.id === 'keep').disclosure_script, agent.disclosure_script);
});

t.test('non-JSON body is 415', async (t) => {
  isProblem(t, await api(srv.baseUrl, 'POST', '/auth/login', { raw: 'email=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_media_type');
});

t.test('unknown routes are 404 problem+json', async (t) => {
  isProblem(t, await api(srv.baseUrl, 'GET', '/does-not-exist'), 404, 'not_found');
  isProblem(t, await api(srv.baseUrl, 'DELETE', '/agents'), 404, 'not_found');
  const root = await fetch(srv.baseUrl.replace(/\/v1$/, '/nothing'));
  t.equal(root.status, 404);
  t.equal((await root.json()).code, 'not_found');
});
