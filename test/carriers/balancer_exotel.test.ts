/**
 * Exotel with two instances (PostgreSQL and Redis): the flow's applets (the Voicebot's stream URL, the Passthru, the
 * Connect applet's number) and the status callbacks all reach the instance that does NOT run the call, as a
 * round-robin balancer may send them. That instance forwards each to the owner, which answers with its own media
 * address; a transfer asked of the other instance goes through the owner's flow, even when the flow's Passthru comes
 * after the owner stored the call's end. One call.completed.
 */
import t from 'tap';
import { api, API_KEY } from '../helpers/server.js';
import { FakeExotel } from '../fakes/exotel.js';
import { startLiveService, calleeAnswer, calleeGreeting, callOf, waitFor } from '../providers/live_env.js';
import { isTerminal } from '../../src/calls/types.js';
import { completedHooks, HOOK } from '../calls/call_commands_flows.js';

const skip = !process.env.DATABASE_URL || !process.env.REDIS_URL ? 'needs DATABASE_URL and REDIS_URL (instances share storage and the bus)' : '';
if (skip) t.plan(0, skip);
else await main();

async function main() {
  t.setTimeout(300_000);
  const HOOK_SECRET = 'exotel-flow-secret-0123456789';
  let other = ''; // the base URL of the instance that does not run the call: every hook of the flow goes there
  const fake = await new FakeExotel({ sid: 'acme2', apiKey: 'exo-key', apiToken: 'exo-token', appId: '515151',
    appletUrl: () => `${other}/carriers/exotel/stream?secret=${HOOK_SECRET}`, passthruUrl: () => `${other}/carriers/exotel/next?secret=${HOOK_SECRET}`,
    // the slow side of the race: the owner has stored the transferred call's end when the Passthru asks
    beforePassthru: (call) => waitFor('the owner to store the end', async () => isTerminal((await callOf(a.srv.baseUrl, call.form.get('CustomField')!)).status)),
    connectUrl: () => `${other}/carriers/exotel/dial?secret=${HOOK_SECRET}`,
    audio: calleeGreeting(), reply: calleeAnswer(), interrupt: calleeAnswer('sorry') }).start();
  t.teardown(() => fake.close());
  const env = { CARRIER: 'exotel', EXOTEL_ACCOUNT_SID: 'acme2', EXOTEL_API_KEY: 'exo-key', EXOTEL_API_TOKEN: 'exo-token',
    EXOTEL_CALLER_ID: '08047491899', EXOTEL_APP_ID: '515151', EXOTEL_API_BASE_URL: fake.baseUrl, EXOTEL_HOOK_SECRET: HOOK_SECRET,
    CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' };
  const a = await startLiveService(env);
  t.teardown(() => a.close());
  const b = await startLiveService(env, { databaseUrl: a.srv.databaseUrl });
  t.teardown(() => b.close());
  other = b.srv.baseUrl;
  const key = { headers: { 'x-api-key': API_KEY } };

  t.test("the applets reach B, A streams the call by its own address, B's transfer goes through A's flow", async (t) => {
    const d = await api(a.srv.baseUrl, 'POST', '/calls/dispatch', { ...key, body: { to: '+919812345670', agent_id: 'default', webhook_url: HOOK } });
    t.equal(d.status, 201, JSON.stringify(d.body));
    const id = d.body.id as string;
    const call = await waitFor('the call at the fake', () => fake.calls.find((c) => c.form.get('CustomField') === id));
    const streamUrl = await waitFor('the stream URL', () => call.streamUrl ?? (call.ended ? `ended ${call.ended}` : undefined));
    t.match(streamUrl, new RegExp(`^ws://127\\.0\\.0\\.1:${a.srv.port}/v1/media/exotel\\?call_id=${id}&token=`), "B answered with A's media address");
    await waitFor('A runs the session', () => a.srv.services.callEngine.runner.live.get(id)?.session);
    t.notOk(b.srv.services.callEngine.runner.live.has(id), 'B does not run it');
    const x = await api(b.srv.baseUrl, 'POST', `/calls/${id}/transfer`, { ...key, body: { target: '+919800001111' } });
    t.equal(x.status, 200, JSON.stringify(x.body));
    await waitFor('the flow to dial the target', () => call.dialed);
    t.equal(call.passthru, 200, 'the Passthru asked B and heard A: transfer');
    t.same(call.dialed, ['+919800001111'], "the Connect applet got A's target through B");
    await waitFor('one call.completed', async () => ((await completedHooks(a.srv, id)) === 1 ? true : undefined));
  });
}
