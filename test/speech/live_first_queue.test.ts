/**
 * The ears thread's task queue: live turns' steps go before whole hearings, each kind first in, first out
 * (src/speech/live_first_queue.ts).
 */
import { queueOptionsSymbol } from 'piscina';
import t from 'tap';
import { LIVE_FIRST, LiveFirstQueue } from '../../src/speech/live_first_queue.js';

type Queued = Parameters<LiveFirstQueue['push']>[0];
const whole = (name: string) => ({ name, [queueOptionsSymbol]: null }) as unknown as Queued;
const live = (name: string) => ({ name, ...LIVE_FIRST }) as unknown as Queued;
const names = (q: LiveFirstQueue) => { const out: string[] = []; for (let x = q.shift(); x; x = q.shift()) out.push((x as unknown as { name: string }).name); return out; };

t.test('live steps leave before whole hearings, each in the order they came', async (t) => {
  const q = new LiveFirstQueue();
  for (const task of [whole('hear 1'), live('feed a'), whole('hear 2'), live('end a'), live('start b')]) q.push(task);
  t.equal(q.size, 5);
  t.same(names(q), ['feed a', 'end a', 'start b', 'hear 1', 'hear 2']);
  t.equal(q.size, 0);
  t.equal(q.shift(), null, 'empty');
});

t.test('a task taken back (its caller gave up) leaves the queue', async (t) => {
  const q = new LiveFirstQueue();
  const gone = live('feed a'), hear = whole('hear 1');
  for (const task of [hear, gone, live('end b')]) q.push(task);
  q.remove(gone);
  q.remove(hear);
  q.remove(whole('never queued'));
  t.equal(q.size, 1);
  t.same(names(q), ['end b']);
});
