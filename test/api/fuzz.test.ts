/**
 * Hostile input against everything the service exposes: every JSON route of the route table (so a route added
 * later is fuzzed too) and both sockets (live stream, carrier media). Whatever arrives, the process lives,
 * every answer is a success or problem+json with a stable code (never 500), and what was stored before is
 * still there afterwards. fast-check prints the seed and the smallest failing input when a property breaks.
 */
import t from 'tap';
import fc from 'fast-check';
import { request } from 'node:http';
import WebSocket from 'ws';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';
import { ERROR_STATUS } from '../../src/errors.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { insertCall, wsUrl } from '../stream/helpers.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
let token = await login(srv.baseUrl);
const RUNS = Number(process.env.FUZZ_RUNS ?? 20);

// ---------- what is stored before, read back after ----------
const agent = { name: 'Survivor', disclosure_script: 'This is an AI call.', qualify_script: [{ field: 'budget', question: 'Budget?' }], role: 'r', voice: 'v', language: 'en-US', interruption_sensitivity: 0.3, turn_detection_timeout_ms: 700 };
await api(srv.baseUrl, 'PUT', '/agents/fuzz-survivor-agent', { token, body: agent });
const lead = await api(srv.baseUrl, 'POST', '/leads', { headers: { 'x-api-key': API_KEY }, body: { name: 'Survivor Lead', phone: '+919876501234', source: 'web', domain: 'realestate' } });
await api(srv.baseUrl, 'POST', '/dnd/import', { headers: { 'x-api-key': API_KEY }, body: { numbers: ['+919876509999'] } });
const campaign = await api(srv.baseUrl, 'POST', '/campaigns', { token, body: { name: 'Survivor campaign', agent_id: 'default', contacts: [{ phone: '+14155550123' }], timezone: 'UTC', max_concurrency: 1 } });
const callId = await insertCall(srv.services, DEV_TENANT_ID, { status: 'completed' });
await srv.services.stream.store.append(DEV_TENANT_ID, callId, { type: 'transcript', speaker: 'caller', text: 'kept', latencyMs: 0, partial: false });
const snapshot = async () => ({
  agent: (await api(srv.baseUrl, 'GET', '/agents', { token })).body.data.find((a: { id: string }) => a.id === 'fuzz-survivor-agent'),
  lead: (await api(srv.baseUrl, 'GET', `/leads/${lead.body.lead?.id ?? lead.body.id}`, { token })).body,
  dnd: (await api(srv.baseUrl, 'GET', '/dnd/check?phone=%2B919876509999', { token })).body.dnd,
  campaign: (await api(srv.baseUrl, 'GET', `/campaigns/${campaign.body.id}`, { token })).body.name,
  events: (await api(srv.baseUrl, 'GET', `/calls/${callId}/events`, { token })).body,
});
const before = await snapshot();
t.ok(before.agent && before.lead.id && before.dnd === true && before.campaign && before.events.data.length, 'the fixtures are stored');

// ---------- hostile values ----------
const nasty = fc.constantFrom('\u0000', '\ud800', '\udfff', '\ufeff', '%00', '%ED%A0%80', '%C0%AF', '../../etc/passwd', '__proto__', 'constructor', '<script>',
  "'; DROP TABLE calls; --", '${7*7}', '+919876501234', 'x'.repeat(5000), '😀', 'null', '-1', '1e309', ' ', '');
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }), nasty);
const leaf = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(1e308), fc.constant(-0));
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(fc.oneof(text, fc.constantFrom('__proto__', 'constructor', 'prototype')), tie('value'), { maxKeys: 5 }),
})).value;
/** A body shaped like the route's own (its known keys), with hostile values; or anything at all. */
const bodyFor = (keys: string[]) => fc.oneof(
  json,
  fc.record(Object.fromEntries(keys.map((k) => [k, json])), { requiredKeys: [] }),
  fc.integer({ min: 1, max: 3000 }).map((d) => '['.repeat(d) + ']'.repeat(d)),
  fc.constantFrom('{', '{"a":', '[1,2', '"\\ud800"', '{"a":"\\u0000"}', 'nul', '{"__proto__":{"admin":true}}'),
);
const keysOf = (schema: unknown): string[] => {
  const shape = (schema as { shape?: Record<string, unknown>; def?: { in?: { shape?: Record<string, unknown> } } })?.shape
    ?? (schema as { def?: { in?: { shape?: Record<string, unknown> } } })?.def?.in?.shape;
  return shape ? Object.keys(shape) : [];
};

/** Every byte percent-encoded (a lone surrogate becomes U+FFFD's bytes); '%ED%A0%80'-style input stays as given. */
const percentEncoded = (s: string) => (/^(%[0-9A-F]{2})+$/i.test(s) ? s : [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''));

/**
 * One request on a connection of its own: a kept-alive connection that the server closes as idle just as the next
 * request reuses it (likely when a loaded machine delays this process's timers) fails with ECONNRESET, which
 * would be the harness's flake, not the service's answer.
 */
function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; type: string | null; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${srv.baseUrl}${path}`, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] ?? null, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const CODES = new Set(Object.keys(ERROR_STATUS));
function acceptable(status: number, type: string | null, body: unknown): string | undefined {
  if (status >= 500) return `status ${status}`;
  if (status < 400) return undefined;
  if (!/^application\/problem\+json/.test(type ?? '')) return `content-type ${type}`;
  const code = (body as { code?: unknown })?.code;
  if (typeof code !== 'string' || !CODES.has(code)) return `code ${String(code)}`;
  return undefined;
}

t.test('every JSON route of the table answers hostile bodies, queries and paths with a code', async (t) => {
  const routes = srv.table.specs;
  t.ok(routes.length > 40, `${routes.length} routes`);
  for (const s of routes) {
    await fc.assert(fc.asyncProperty(
      bodyFor(keysOf(s.body)), fc.dictionary(fc.oneof(text, fc.constantFrom(...keysOf(s.query), 'limit', 'cursor')), text, { maxKeys: 3 }),
      fc.array(text, { minLength: 3, maxLength: 3 }), fc.constantFrom('admin', 'key', 'none'),
      async (body, query, params, who) => {
        let i = 0;
        const path = s.path.replace(/:[a-z_]+/g, () => percentEncoded(params[i++] || 'x'));
        const qs = new URLSearchParams(query as Record<string, string>).toString();
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (who === 'admin') headers.authorization = `Bearer ${token}`;
        if (who === 'key') headers['x-api-key'] = API_KEY;
        const res = await send(s.method.toUpperCase(), `${path}${qs ? `?${qs}` : ''}`, headers,
          s.method === 'get' ? undefined : (typeof body === 'string' ? body : JSON.stringify(body) ?? 'null'));
        const raw = res.body;
        let parsed: unknown;
        try { parsed = JSON.parse(raw); } catch { parsed = raw; }
        const problem = acceptable(res.status, res.type, parsed);
        if (problem) throw new Error(`${s.method.toUpperCase()} ${path}: ${problem}: ${raw.slice(0, 300)}`);
      }), { numRuns: RUNS });
    // signing out ends the token the fuzzer called it with: the routes after it (and the final check) get a new one
    if (s.path === '/auth/sign-out') token = await login(srv.baseUrl);
  }
  t.pass('all routes held');
});

async function openSocket(url: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(url, { headers });
  ws.on('error', () => {});
  await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('unexpected-response', () => reject(new Error('upgrade refused'))); });
  return ws;
}

const frame = fc.oneof(
  text.map((s) => ({ data: s as string | Buffer, binary: false })),
  json.map((v) => ({ data: JSON.stringify(v) ?? 'null', binary: false })),
  fc.uint8Array({ maxLength: 64 }).map((b) => ({ data: Buffer.from(b), binary: true })),
  fc.record({ type: fc.constantFrom('transfer', 'ping', 'subscribe'), target: text }).map((v) => ({ data: JSON.stringify(v), binary: false })),
  fc.record({ event: fc.constantFrom('connected', 'start', 'media', 'mark', 'stop', 'dtmf'), streamSid: text, start: json, media: json, mark: json })
    .map((v) => ({ data: JSON.stringify(v), binary: false })),
);

t.test('both sockets take hostile frames and the process lives', async (t) => {
  const sockets = {
    'live stream': () => openSocket(wsUrl(srv.baseUrl, `/calls/${callId}/stream`), { authorization: `Bearer ${API_KEY}` }),
    'carrier media': () => openSocket(wsUrl(srv.baseUrl, '/media/twilio')),
  };
  for (const [name, open] of Object.entries(sockets)) {
    await fc.assert(fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 8 }), async (frames) => {
      const ws = await open();
      for (const f of frames) if (ws.readyState === ws.OPEN) ws.send(f.data, { binary: f.binary });
      await new Promise((r) => setTimeout(r, 10));
      ws.terminate();
      const health = await fetch(`${srv.baseUrl}/health`);
      if (health.status !== 200) throw new Error(`${name}: health ${health.status}`);
    }), { numRuns: RUNS * 2 });
    t.pass(`${name} held`);
  }
});

t.test('what was stored before is still there', async (t) => {
  t.same(await snapshot(), before);
  t.equal((await fetch(`${srv.baseUrl}/health`)).status, 200);
});
