/**
 * The one outbound HTTP helper (src/providers/http): the Retry-After reader, the back-off, the retry loop that
 * honours AdapterError.retryable (and gives up on a wait too long), what `exchange` retries (429/503 always, other
 * 5xx only when idempotent, a refused connection always), aborts, and the redaction of keys in error text.
 */
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdapterError } from '../../src/adapters/types.js';
import { errorDetail, redactSecrets } from '../../src/providers/http/errors.js';
import { backoffMs, nextRetryMs, retryAfterMs, withRetries } from '../../src/providers/http/retry.js';
import { exchange } from '../../src/providers/http/request.js';

t.test('Retry-After: retry-after-ms, seconds, an HTTP date; nothing for junk', async (t) => {
  t.equal(retryAfterMs(new Headers({ 'retry-after-ms': '40', 'retry-after': '9' })), 40);
  t.equal(retryAfterMs(new Headers({ 'retry-after': '1.5' })), 1500);
  t.equal(retryAfterMs(new Headers({ 'retry-after': new Date(20_000).toUTCString() }), 15_000), 5000);
  t.equal(retryAfterMs(new Headers({ 'retry-after': new Date(1_000).toUTCString() }), 15_000), 0, 'a date in the past: now');
  for (const junk of ['', ' ', 'soon', '-3']) t.equal(retryAfterMs(new Headers({ 'retry-after': junk })), undefined, `"${junk}"`);
});

t.test('back-off doubles from its base, is capped, and jitter only takes off', async (t) => {
  t.equal(backoffMs(0, { baseMs: 100, jitter: 0 }), 100);
  t.equal(backoffMs(3, { baseMs: 100, jitter: 0 }), 800);
  t.equal(backoffMs(10, { baseMs: 100, capMs: 1000, jitter: 0 }), 1000);
  for (let i = 0; i < 50; i++) {
    const w = backoffMs(1, { baseMs: 100, jitter: 0.25 });
    t.ok(w > 150 - 1e-9 && w <= 200, `jittered ${w}`);
  }
});

t.test('the loop: only retryable failures, a server wait over the bound ends it, tries counted', async (t) => {
  const fail = (retryable: boolean, retryAfterMs?: number) => Object.assign(new AdapterError('tool', retryable ? 'unavailable' : 'failed', 'x', retryable), { retryAfterMs });
  t.equal(nextRetryMs(fail(false), 0, { attempts: 3 }), undefined, 'not retryable');
  t.equal(nextRetryMs(new Error('plain'), 0, { attempts: 3 }), undefined, 'not an AdapterError');
  t.equal(nextRetryMs(fail(true, 70), 0, { attempts: 3 }), 70, 'the server\'s wait');
  t.equal(nextRetryMs(fail(true, 5000), 0, { attempts: 3, maxWaitMs: 1000 }), undefined, 'a wait past the bound');
  t.equal(nextRetryMs(fail(true), 2, { attempts: 3 }), undefined, 'no tries left');
  t.equal(nextRetryMs(fail(true, 500), 0, { attempts: 3, deadlineAt: performance.now() + 100 }), undefined, 'past the deadline');
  let n = 0;
  const v = await withRetries(async () => { if (++n < 3) throw fail(true, 1); return 'done'; }, { attempts: 3, canceled: () => new Error('canceled') });
  t.same([v, n], ['done', 3]);
  n = 0;
  await t.rejects(withRetries(async () => { n++; throw fail(false); }, { attempts: 5, canceled: () => new Error('canceled') }), { code: 'failed' });
  t.equal(n, 1, 'a final failure is not tried again');
  const ac = new AbortController();
  const p = withRetries(async () => { throw fail(true, 10_000); }, { attempts: 2, signal: ac.signal, canceled: () => new AdapterError('tool', 'canceled', 'stop') });
  setTimeout(() => ac.abort(), 20);
  await t.rejects(p, { code: 'canceled' }, 'an abort ends the wait at once');
});

t.test('redaction: keys the provider quotes, bearer and basic credentials, and the provider\'s own secrets', async (t) => {
  t.equal(redactSecrets('Incorrect API key provided: sk-proj-abc123456789xyz.'), 'Incorrect API key provided: [redacted].');
  t.equal(redactSecrets('got Authorization: Bearer eyJhbGciOi.abc.def'), 'got Authorization: [redacted]');
  t.equal(redactSecrets('echo Basic QUM6c2VjcmV0dG9rZW4='), 'echo [redacted]');
  t.equal(redactSecrets('auth plivo-auth-token-1 was wrong', ['plivo-auth-token-1']), 'auth [redacted] was wrong');
  t.equal(errorDetail(JSON.stringify({ error: { message: 'bad key sk-abcdef123456' } })), 'bad key [redacted]');
  t.equal(errorDetail(JSON.stringify({ RestException: { Message: 'From is not a valid phone number' } })), 'From is not a valid phone number');
  t.equal(errorDetail(JSON.stringify({ detail: { message: 'quota' } })), 'quota');
  t.equal(errorDetail('<html>proxy error</html>'), '<html>proxy error</html>');
});

// ---- exchange against a local server that answers from a script ----
const script: Array<{ status: number; headers?: Record<string, string> }> = [];
let hits = 0;
const server = createServer((req, res) => {
  hits++;
  const next = script.shift() ?? { status: 200 };
  req.resume();
  req.on('end', () => res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers }).end(JSON.stringify({ message: `answer ${next.status}` })));
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
t.teardown(() => new Promise<void>((r) => server.close(() => r())));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
const policy = { attempts: 3, baseMs: 5, jitter: 0 };
const send = (idempotent: boolean, signal?: AbortSignal) =>
  exchange({ adapter: 'tool', name: 'fake', method: 'POST', url, body: { json: {} }, signal }, { idempotent, policy });

t.test('exchange: 429 and 503 retried, other 5xx only when idempotent, the last answer returned', async (t) => {
  hits = 0; script.push({ status: 429, headers: { 'retry-after': '0' } }, { status: 503 });
  t.equal((await send(false)).status, 200, 'nothing was done: tried again');
  t.equal(hits, 3);
  hits = 0; script.push({ status: 500 });
  t.equal((await send(false)).status, 500, 'a create that may have happened is not sent twice');
  t.equal(hits, 1);
  hits = 0; script.push({ status: 500 }, { status: 502 });
  t.equal((await send(true)).status, 200, 'an idempotent request is');
  t.equal(hits, 3);
  hits = 0; script.push({ status: 429 }, { status: 429 }, { status: 429 });
  const last = await send(false);
  t.same([last.status, hits], [429, 3], 'out of tries: the last answer');
  t.match(last.json, { message: 'answer 429' });
  hits = 0; script.push({ status: 429, headers: { 'retry-after': '60' } });
  const started = performance.now();
  const long = await exchange({ adapter: 'tool', name: 'fake', method: 'POST', url }, { idempotent: false, policy: { ...policy, maxWaitMs: 1000 } });
  t.same([long.status, hits], [429, 1], 'a Retry-After past the caller\'s bound is not waited for: the answer stands');
  t.ok(performance.now() - started < 5000, 'did not sit out the 60 s');
});

t.test('exchange: a refused connection is retried, then unavailable; an abort is canceled', async (t) => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const dead = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/x`;
  await new Promise<void>((r) => closed.close(() => r()));
  const err = await exchange({ adapter: 'carrier', name: 'fake', method: 'POST', url: dead, secrets: ['s3cret-token'] }, { idempotent: false, policy })
    .then(() => undefined, (e: unknown) => e);
  t.match(err, { name: 'AdapterError', code: 'unavailable', retryable: true, message: /fake unreachable/ });
  const ac = new AbortController();
  ac.abort();
  await t.rejects(send(false, ac.signal), { code: 'canceled' });
});
