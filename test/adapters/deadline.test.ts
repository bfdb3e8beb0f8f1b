/**
 * withDeadline nested under another withDeadline (an implementation wrapped by withDefaultTimeouts calling it
 * again with the signal it was given): the inner call reuses the outer signal when it adds no earlier deadline,
 * and every deadline and abort still holds. Work that ignores its signal never settles here, so each rejection
 * is the deadline's own.
 */
import t from 'tap';
import { withDeadline } from '../../src/adapters/deadline.js';
import { AdapterError, SimCarrier } from '../../src/adapters/index.js';
import { withDefaultTimeouts } from '../../src/adapters/defaults.js';

const never = () => new Promise<never>(() => {});

// Deadline timers are unref'd (they must not hold a server open): this keeps the test process alive meanwhile.
const alive = setInterval(() => {}, 1_000);
t.teardown(() => clearInterval(alive));

async function codeOf(p: Promise<unknown>): Promise<string> {
  try { await p; return 'resolved'; } catch (err) { return err instanceof AdapterError ? err.code : `not an AdapterError: ${String(err)}`; }
}

t.test('an inner call with the same deadline runs under the outer signal itself', async (t) => {
  let outerSignal: AbortSignal | undefined;
  let innerSignal: AbortSignal | undefined;
  const out = await withDeadline('carrier', { timeoutMs: 1_000 }, (signal) => {
    outerSignal = signal;
    return withDeadline('carrier', { signal, timeoutMs: 1_000 }, async (s) => { innerSignal = s; return 42; });
  });
  t.equal(out, 42);
  t.ok(innerSignal, 'the inner work ran');
  t.equal(innerSignal, outerSignal, 'no second controller for a deadline the outer call already enforces');
});

t.test('the outer deadline stops a nested call whose work ignores its signal', async (t) => {
  const started = performance.now();
  const code = await codeOf(withDeadline('carrier', { timeoutMs: 50 }, (signal) =>
    withDeadline('carrier', { signal, timeoutMs: 50 }, never)));
  t.equal(code, 'timeout');
  t.ok(performance.now() - started < 1_000, 'at the deadline, not later');
});

t.test('an inner deadline earlier than the outer one is kept', async (t) => {
  let inner: AbortSignal | undefined;
  const code = await codeOf(withDeadline('carrier', { timeoutMs: 60_000 }, (signal) =>
    withDeadline('carrier', { signal, timeoutMs: 30 }, (s) => { inner = s; return never(); })));
  t.equal(code, 'timeout', 'the 30 ms deadline fired, not the 60 s one');
  t.ok(inner?.aborted, 'the inner call had a signal of its own, and it fired');
});

t.test("the caller's abort cancels a nested call", async (t) => {
  const caller = new AbortController();
  const p = withDeadline('carrier', { signal: caller.signal, timeoutMs: 60_000 }, (signal) =>
    withDeadline('carrier', { signal, timeoutMs: 60_000 }, never));
  setTimeout(() => caller.abort(), 10);
  t.equal(await codeOf(p), 'canceled');
});

t.test('a signal whose call has ended covers no later call: that one keeps its own deadline', async (t) => {
  let kept: AbortSignal | undefined;
  await withDeadline('carrier', { timeoutMs: 60_000 }, async (signal) => { kept = signal; });
  const code = await codeOf(withDeadline('carrier', { signal: kept, timeoutMs: 30 }, never));
  t.equal(code, 'timeout', 'the ended call no longer enforces anything, so the 30 ms deadline did');
});

t.test('the simulator carrier behind default timeouts: busy, timeout and cancel as before', async (t) => {
  const carrier = withDefaultTimeouts({ carrier: new SimCarrier({ ringMs: 5, noAnswerMs: 5_000 }) } as never, 8_000).carrier;
  const req = { callId: 'call_1', tenantId: 'ten_1', to: '+15005550002', mediaUrl: 'ws://127.0.0.1/media', parameters: {} };
  t.equal((await carrier.placeCall(req)).outcome, 'busy');
  t.equal(await codeOf(carrier.placeCall({ ...req, to: '+15005550001' }, { timeoutMs: 30 })), 'timeout', 'ringing past the deadline');
  const ctl = new AbortController();
  const p = carrier.placeCall({ ...req, to: '+15005550001' }, { signal: ctl.signal, timeoutMs: 60_000 });
  setTimeout(() => ctl.abort(), 10);
  t.equal(await codeOf(p), 'canceled', 'hung up while ringing');
});
