/**
 * finalizeNow: a turn is cut when its end is known (the recogniser's finalize is called at once), and its deadline
 * runs from when the session waits for its result, behind the turns before it.
 */
import t from 'tap';
import { finalizeNow } from '../../src/adapters/finalize_now.js';
import type { AdapterCallOptions, SttStream, TranscriptResult } from '../../src/adapters/types.js';

const result: TranscriptResult = { text: 'my name is ravi', final: true, startMs: 0, endMs: 900 };

/** A stream whose finalize answers only when told; records each call's options. */
function pendingStream() {
  const calls: AdapterCallOptions[] = [];
  let answer: (r: TranscriptResult) => void = () => {};
  const stream: SttStream = {
    write() {}, onResult() {}, close() {},
    finalize(opts) { calls.push(opts ?? {}); return new Promise((resolve) => { answer = resolve; }); },
  };
  return { stream, calls, answer: (r: TranscriptResult) => answer(r) };
}

t.test('the recogniser is asked at once, with no deadline of its own', async (t) => {
  const s = pendingStream();
  const heard = finalizeNow(s.stream, 1000);
  t.equal(s.calls.length, 1, 'finalize called when the turn ends, before anyone waits');
  t.equal(s.calls[0].timeoutMs, 0, 'the deadline is the waiter\'s');
  s.answer(result);
  t.same(await heard(), result);
});

t.test('the deadline runs from the wait, not from the cut', async (t) => {
  const s = pendingStream();
  const heard = finalizeNow(s.stream, 20);
  await new Promise((r) => setTimeout(r, 60)); // the turn before is heard meanwhile: longer than the deadline
  s.answer(result);
  t.same(await heard(), result, 'not late: nobody waited for it yet');
});

t.test('past the deadline: a timeout, and the recogniser is told to stop', async (t) => {
  const s = pendingStream();
  const heard = finalizeNow(s.stream, 20);
  const alive = setTimeout(() => {}, 10_000); // deadline timers are unref'd: the service's sockets keep it running
  await t.rejects(heard(), { code: 'timeout', adapter: 'stt' });
  clearTimeout(alive);
  t.ok(s.calls[0].signal?.aborted, 'its signal fired');
});

t.test('a finalize that throws is a rejection of the wait, not of the cut', async (t) => {
  const stream: SttStream = { write() {}, onResult() {}, close() {}, finalize() { throw new Error('stream closed'); } };
  const heard = finalizeNow(stream, 1000);
  await t.rejects(heard(), { adapter: 'stt', code: 'failed' });
});
