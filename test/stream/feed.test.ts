import t from 'tap';
import { MemoryBus } from '../../src/bus/memory_bus.js';
import { CallFeed, type FeedItem } from '../../src/stream/feed.js';
import type { CallEventStore } from '../../src/stream/event_store.js';
import type { CallEventMessage } from '../../src/stream/types.js';
import { createLogger } from '../../src/log.js';

const msg = (seq: number): CallEventMessage => ({ type: 'entity', key: 'k', value: String(seq), call_id: 'call_x', seq, at: new Date(0).toISOString() });

/** Storage stub: holds what was "stored"; counts reads. */
function fakeStore(stored: CallEventMessage[]) {
  const s = { reads: 0 };
  const store = {
    async lastSeq() { return 0; },
    async after(_id: string, afterSeq: number) { s.reads++; return stored.filter((m) => m.seq > afterSeq); },
  } as unknown as CallEventStore;
  return { store, s };
}

const microtasks = async (n: number) => { for (let i = 0; i < n; i++) await Promise.resolve(); };
const settle = () => new Promise((r) => setTimeout(r, 30));

t.test('the tail of a burst is emitted without waiting for a later item, whatever the arrival timing', async (t) => {
  // Regression: items arriving while the drain loop was settling stayed queued until the next item.
  // gap -1: published back to back in one tick, as a Redis socket read hands over several messages at once.
  for (let gap = -1; gap <= 6; gap++) {
    const bus = new MemoryBus();
    const stored = Array.from({ length: 50 }, (_, i) => msg(i + 1));
    const feed = new CallFeed('call_x', fakeStore(stored).store, bus, createLogger('silent'));
    const got: number[] = [];
    feed.add((i: FeedItem) => got.push(i.seq));
    await feed.ready;
    if (gap < 0) for (const m of stored) void bus.publish('call:call_x', m);
    else for (const m of stored) { await bus.publish('call:call_x', m); await microtasks(gap); }
    await settle();
    t.same(got, stored.map((m) => m.seq), `${gap < 0 ? 'same tick' : `gap of ${gap} microtasks`}: all 50 emitted, in order`);
    feed.close();
  }
});

t.test('reordered and missing bus items are filled from storage, once', async (t) => {
  const bus = new MemoryBus();
  const stored = Array.from({ length: 6 }, (_, i) => msg(i + 1));
  const { store, s } = fakeStore(stored);
  const feed = new CallFeed('call_x', store, bus, createLogger('silent'));
  const got: FeedItem[] = [];
  feed.add((i) => got.push(i));
  await feed.ready;
  for (const seq of [2, 1, 4, 6, 5]) await bus.publish('call:call_x', stored[seq - 1]);
  await settle();
  t.same(got.map((i) => i.seq), [1, 2, 3, 4, 5, 6]);
  t.ok(s.reads >= 1 && s.reads <= 3, `storage read ${s.reads} time(s)`);
  const frame = got[0].frame;
  t.equal(frame[0], 0x81, 'text frame, FIN');
  t.same(JSON.parse(frame.subarray(2).toString()), stored[0], 'frame carries the JSON item');
  feed.close();
});

t.test('catchUp() after a bus outage emits what was stored meanwhile', async (t) => {
  const bus = new MemoryBus();
  const stored: CallEventMessage[] = [];
  const feed = new CallFeed('call_x', fakeStore(stored).store, bus, createLogger('silent'));
  const got: number[] = [];
  feed.add((i) => got.push(i.seq));
  await feed.ready;
  stored.push(msg(1), msg(2));
  feed.catchUp();
  await settle();
  t.same(got, [1, 2]);
  await bus.publish('call:call_x', msg(2));
  await settle();
  t.same(got, [1, 2], 'duplicate from the bus dropped');
  feed.close();
});

t.test('an item of another call on the channel is ignored', async (t) => {
  const bus = new MemoryBus();
  const feed = new CallFeed('call_x', fakeStore([]).store, bus, createLogger('silent'));
  const got: number[] = [];
  feed.add((i) => got.push(i.seq));
  await feed.ready;
  await bus.publish('call:call_x', { ...msg(1), call_id: 'call_y' });
  await bus.publish('call:call_x', { nonsense: true });
  await settle();
  t.same(got, []);
  feed.close();
});
