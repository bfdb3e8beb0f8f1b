import t from 'tap';
import { MemoryBus } from '../../src/bus/memory_bus.js';
import { RedisBus } from '../../src/bus/redis_bus.js';
import type { Bus } from '../../src/bus/bus.js';
import { OwnRedis, haveRedisServer } from './redis_server.js';

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));
async function waitFor(pred: () => boolean, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!pred()) { if (Date.now() > end) throw new Error(`timed out: ${what}`); await tick(); }
}

const hasRedis = await haveRedisServer();
let own: OwnRedis | undefined;
if (hasRedis) { own = await OwnRedis.start(); t.teardown(() => own!.kill()); }

const impls: Array<[string, () => Bus]> = [['memory', () => new MemoryBus()]];
if (own) impls.push(['redis', () => new RedisBus(own!.url)]);
else t.comment('redis-server not installed: Redis bus contract tests skipped');

for (const [name, make] of impls) {
  t.test(`${name} bus: contract`, async (t) => {
    const bus = make();
    t.teardown(() => bus.close());
    await bus.ping();
    const a: unknown[] = [], b: unknown[] = [];
    const ua = await bus.subscribe('c1', (m) => a.push(m));
    const ub = await bus.subscribe('c1', (m) => { b.push(m); throw new Error('a broken handler'); });
    const other: unknown[] = [];
    await bus.subscribe('c2', (m) => other.push(m));
    for (let i = 1; i <= 50; i++) await bus.publish('c1', { seq: i, text: 'héllo' });
    await waitFor(() => a.length === 50 && b.length === 50, 'both handlers got 50');
    t.same(a.map((m: any) => m.seq), Array.from({ length: 50 }, (_, i) => i + 1), 'in publish order');
    t.same(a[0], { seq: 1, text: 'héllo' });
    t.equal(other.length, 0, 'other channel untouched');
    (a[0] as any).text = 'mutated';
    t.equal((b[0] as any).text, 'héllo', 'each handler gets its own copy');
    ub(); ub();
    await bus.publish('c1', { seq: 51 });
    await waitFor(() => a.length === 51, 'a got 51');
    await tick(50);
    t.equal(b.length, 50, 'unsubscribed handler gets nothing more');
    ua();
    await bus.close();
    await t.rejects(bus.publish('c1', {}), 'publish after close fails');
  });
}

t.test('redis bus resubscribes and keeps serving across a Redis restart', { skip: !own && 'redis-server not installed' }, async (t) => {
  const bus = new RedisBus(own!.url);
  t.teardown(() => bus.close());
  const got: number[] = [];
  let reconnects = 0;
  bus.onReconnect(() => reconnects++);
  await bus.subscribe('call:x', (m) => got.push((m as any).seq));
  await bus.publish('call:x', { seq: 1 });
  await waitFor(() => got.length === 1, 'first message');

  await own!.kill();
  await t.rejects(bus.publish('call:x', { seq: 2 }), 'publish fails while Redis is down');
  await t.rejects(bus.ping(), 'ping reports the outage');
  // A new subscription made during the outage must be active once Redis is back.
  const late: number[] = [];
  const lateSub = bus.subscribe('call:y', (m) => late.push((m as any).seq));
  await own!.start();
  await lateSub;
  await waitFor(() => reconnects >= 1, 'onReconnect fired');
  await bus.ping();
  await bus.publish('call:x', { seq: 3 });
  await bus.publish('call:y', { seq: 1 });
  await waitFor(() => got.includes(3) && late.length === 1, 'delivery resumed on old and new channels');
  t.same(got, [1, 3], 'message published during the outage is lost on the bus (repaired from storage upstream)');
});
