/**
 * What a live carrier's callbacks may do to a call, in any order and more than once: only forward moves count
 * (ringing < answered < ended), placeCall settles once, a ring timeout or an abort ends a call nothing answered
 * and cancels it at the carrier.
 */
import t from 'tap';
import { AdapterError, type CarrierCallEvent } from '../../src/adapters/types.js';
import { CallTracker as CarrierCalls } from '../../src/carriers/call_tracker.js';

const setup = (ringTimeoutMs = 10_000, signal?: AbortSignal) => {
  const calls = new CarrierCalls();
  const events: CarrierCallEvent[] = [];
  const canceled: string[] = [];
  const { call, result } = calls.track('call_1', { data: {}, onEvent: (e) => events.push(e), signal, ringTimeoutMs,
    cancel: async (c) => { canceled.push(c.callId); } });
  return { calls, events, canceled, call, result };
};

t.test('ringing, answered, repeats and late news', async (t) => {
  const { calls, events, result } = setup();
  calls.ringing('call_1', 'uuid-1');
  calls.ringing('call_1');
  calls.answered('call_1', 'uuid-1', 'in-progress');
  calls.answered('call_1', 'uuid-1', 'in-progress');
  calls.ringing('call_1'); // late
  t.same(await result, { carrierCallId: 'uuid-1', outcome: 'answered', carrierStatus: 'in-progress' });
  calls.machine('call_1', true, 'machine');
  calls.machine('call_1', true, 'machine');
  calls.ended('call_1', 'completed', 'completed:NORMAL_CLEARING');
  calls.ended('call_1', 'completed', 'completed:NORMAL_CLEARING');
  calls.answered('call_1', 'uuid-1', 'in-progress'); // after the end
  t.same(events, [{ type: 'ringing' }, { type: 'machine', beepDone: true, carrierStatus: 'machine' }, { type: 'ended', carrierStatus: 'completed:NORMAL_CLEARING' }]);
  t.equal(calls.get('call_1'), undefined, 'forgotten once ended');
});

t.test('the end before the answer is the outcome; a "completed" never answered is no answer', async (t) => {
  const a = setup();
  a.calls.ended('call_1', 'busy', 'busy:USER_BUSY');
  a.calls.answered('call_1', 'u', 'in-progress');
  t.match(await a.result, { outcome: 'busy', carrierStatus: 'busy:USER_BUSY' });
  const b = setup();
  b.calls.ended('call_1', 'completed', 'completed');
  t.match(await b.result, { outcome: 'no_answer' });
  t.same(b.events, []);
});

t.test('the ring timeout ends and cancels a call nothing answers', async (t) => {
  const { result, canceled } = setup(50);
  const alive = setTimeout(() => {}, 1000); // the tracker's timers do not hold a process open
  t.match(await result, { outcome: 'no_answer', carrierStatus: 'ring_timeout' });
  t.same(canceled, ['call_1']);
  clearTimeout(alive);
});

t.test('an abort while ringing cancels at the carrier and rejects as canceled', async (t) => {
  const ctl = new AbortController();
  const { result, canceled, calls } = setup(10_000, ctl.signal);
  calls.ringing('call_1', 'u');
  ctl.abort();
  const err = await result.then(() => undefined, (e: unknown) => e);
  t.ok(err instanceof AdapterError && err.code === 'canceled', 'rejected as canceled');
  t.same(canceled, ['call_1']);
  calls.answered('call_1', 'u', 'in-progress'); // too late: ignored
});

t.test('a call is found by the carrier\'s id or its request id', async (t) => {
  const { calls, call, result } = setup();
  const closed = result.then(() => 'settled', (e: AdapterError) => e.code);
  call.requestId = 'req-9';
  t.equal(calls.byCarrierId('req-9')?.callId, 'call_1');
  calls.ringing('call_1', 'uuid-9');
  t.equal(calls.byCarrierId('uuid-9')?.callId, 'call_1');
  t.equal(calls.byCarrierId('nope'), undefined);
  calls.close();
  t.equal(await closed, 'canceled', 'closing gives up the calls still waiting');
});
