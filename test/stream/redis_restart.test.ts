import t from 'tap';
import { login, startTestServer } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { connect, insertCall, wsUrl } from './helpers.js';
import { OwnRedis, haveRedisServer } from './redis_server.js';

// Our own redis-server on a free port: other engineers share the machine's Redis, so we never stop that one.
const skip = (await haveRedisServer()) ? '' : 'redis-server is not installed';
if (skip) t.plan(0, skip);
else await main();

async function main() {
  const redis = await OwnRedis.start();
  t.teardown(() => redis.kill());
  const srv = await startTestServer({ env: { REDIS_URL: redis.url } });
  t.teardown(() => srv.close());
  const deps = srv.services;
  const jwt = await login(srv.baseUrl);
  const auth = { authorization: `Bearer ${jwt}` };
  const say = (callId: string, text: string) =>
    deps.callEvents.publish(DEV_TENANT_ID, callId, { type: 'transcript', speaker: 'agent', text, latencyMs: 5, partial: false });

  t.test('the edge keeps its listeners through a Redis restart and delivers what was said meanwhile', async (t) => {
    t.equal(deps.bus.kind, 'redis');
    const callId = await insertCall(deps, DEV_TENANT_ID);
    const url = wsUrl(srv.baseUrl, `/calls/${callId}/stream`);
    const before = await connect(url, auth);
    await say(callId, 'before');
    await before.c!.until((g) => g.length === 1);

    await redis.kill();
    // The call goes on: items are stored (publishing fails quietly) and nobody's publish call fails.
    await say(callId, 'during 1');
    await say(callId, 'during 2');
    // A listener arriving during the outage is upgraded and waits for the bus.
    const during = await connect(url, auth);
    t.equal(before.ws!.readyState, before.ws!.OPEN, 'existing listener kept');

    await redis.start();
    const want = ['before', 'during 1', 'during 2'];
    t.same((await before.c!.until((g) => g.length >= 3, 'catch-up after reconnect')).map((m) => m.text), want);
    await say(callId, 'after');
    for (const [name, l] of [['before', before], ['during', during]] as const) {
      const got = await l.c!.until((g) => g.length >= 4, name);
      t.same(got.map((m) => m.seq), [1, 2, 3, 4], `${name}: no gap, no duplicate`);
      t.same(got.map((m) => m.text), [...want, 'after']);
    }
    before.ws!.close(); during.ws!.close();
  });
}
