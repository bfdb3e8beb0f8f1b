/**
 * An operator's moves on a call reach the instance that runs it: the call waits on hold on A, and the operator
 * accepts, speaks and ends it through B. The caller on A hears the operator and answers; the call ends transferred
 * to the operator, with one call.completed. The operator's audio ticket asked of B names A's socket, where the
 * call runs. Needs PostgreSQL and Redis (two instances share storage and the bus).
 */
import t from 'tap';
import { api, login, startTestServer, waitForCallEnd } from '../helpers/server.js';
import { completedHooks, HOOK, until } from './call_commands_flows.js';
import { openLeg } from '../carriers/helpers/browser_leg.js';
import { callerOnHold, isItem } from '../handoffs/helpers/operator_call.js';

// two instances and a real-time call: more than the suite's per-file limit on a busy machine
t.setTimeout(300_000);

const skip = !process.env.DATABASE_URL || !process.env.REDIS_URL ? 'needs DATABASE_URL and REDIS_URL (instances share storage and the bus)' : '';
if (skip) t.plan(0, skip);
else await main();

async function main() {
  const env = { SIM_TIME_SCALE: '20', CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' };
  const a = await startTestServer({ env });
  t.teardown(() => a.close());
  const b = await startTestServer({ env, databaseUrl: a.databaseUrl });
  t.teardown(() => b.close());
  const admin = await login(a.baseUrl);
  const sub = JSON.parse(Buffer.from(admin.split('.')[1], 'base64url').toString()).sub as string;
  const auth = { token: admin };
  await api(a.baseUrl, 'PUT', '/handoffs/settings', { ...auth, body: { hold_seconds: 3600 } });
  const messages = async (conv: string) => (await a.services.db.query<{ role: string; text: string }>(
    'SELECT role, text FROM conversation_messages WHERE conversation_id = $1 ORDER BY id', [conv])).rows;

  t.test('accept, reply and resolve sent to B act on the call running on A', async (t) => {
    const d = await api(a.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+15005550007', agent_id: 'default', webhook_url: HOOK } });
    t.equal(d.status, 201);
    const id = d.body.id as string;
    t.ok(a.services.callEngine.runner.live.has(id) && !b.services.callEngine.runner.live.has(id), 'A runs the call');
    const conv = (await a.services.db.query<{ conversation_id: string }>('SELECT conversation_id FROM calls WHERE id = $1', [id])).rows[0].conversation_id;
    await until('on hold', async () => ((await messages(conv)).some((m) => /stay on the line/.test(m.text)) ? true : undefined));

    t.equal((await api(b.baseUrl, 'POST', `/handoffs/${conv}/accept`, auth)).status, 200, 'accepted on B');
    await until('the agent on A stands aside', () => a.services.callEngine.runner.live.get(id)?.session?.withOperator || undefined);
    const before = (await messages(conv)).length;
    const rep = await api(b.baseUrl, 'POST', `/handoffs/${conv}/reply`, { ...auth, body: { text: 'Hello, this is Sam from the sales team. How can I help you?' } });
    t.equal(rep.status, 200);
    const after = await until('the caller on A answers the operator', async () => {
      const m = (await messages(conv)).slice(before);
      return m.some((x) => x.role === 'caller') ? m : undefined;
    });
    t.same(after.map((m) => m.role), ['operator', 'caller'], 'the operator was heard on A; the agent stayed quiet');

    t.equal((await api(b.baseUrl, 'POST', `/handoffs/${conv}/resolve`, { ...auth, body: { then: 'close' } })).status, 200, 'resolved on B');
    const ended = await waitForCallEnd(b.baseUrl, id, { authorization: `Bearer ${admin}` });
    t.match(ended, { status: 'completed', ended_reason: 'transferred' });
    await until('A lets the call go', () => !a.services.callEngine.runner.live.has(id) || undefined);
    const items = (await a.services.db.query<{ type: string; payload: { target?: string } }>('SELECT type, payload FROM call_events WHERE call_id = $1 ORDER BY seq', [id])).rows;
    t.ok(items.some((i) => i.type === 'transfer' && i.payload.target === `operator:${sub}`), 'transferred to the operator who took it on B');
    t.equal(await completedHooks(a, id), 1, 'one call.completed');
  });

  t.test("the audio ticket asked of B names A's operator socket; the operator is heard there", async (t) => {
    const call = await callerOnHold(a.baseUrl, admin, a.services.db);
    t.ok(a.services.callEngine.runner.live.has(call.id), 'A runs the call');
    t.equal((await api(b.baseUrl, 'POST', `/handoffs/${call.conv}/accept`, auth)).status, 200, 'accepted on B');
    const ticket = await api(b.baseUrl, 'POST', `/handoffs/${call.conv}/audio`, auth);
    t.equal(ticket.status, 200, ticket.body.detail);
    t.equal(ticket.body.media_url, `${a.baseUrl.replace(/^http/, 'ws')}/media/operator`, "A's own address");
    const op = await openLeg(ticket.body.media_url);
    op.send({ event: 'start', call_id: call.id, token: ticket.body.token, media_format: { encoding: 'pcm16', sample_rate: 16_000 } });
    await op.next((m) => m.event === 'started', 'started on A');
    op.microphone(16_000, 20);
    await op.say(new Int16Array(16_000 * 2).map((_, i) => Math.round(8000 * Math.sin(i / 5) * (Math.floor(i / 1600) % 2))));
    await call.caller.next((m) => isItem(m, 'transcript', 'operator'), "the operator's turn on the call");
    t.equal((await api(b.baseUrl, 'POST', `/handoffs/${call.conv}/resolve`, { ...auth, body: { then: 'close' } })).status, 200, 'ended on B');
    t.match(await op.closed, { code: 1000 }, "A closes the operator's leg");
    const ended = await waitForCallEnd(b.baseUrl, call.id, { authorization: `Bearer ${admin}` });
    t.match(ended, { status: 'completed', ended_reason: 'transferred' });
  });
}
