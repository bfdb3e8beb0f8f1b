/**
 * Twilio behind a round-robin balancer with two instances (PostgreSQL and Redis): the fake Twilio (test/fakes,
 * signing with the twilio package) sends every status callback to the instance that does NOT run the call, which
 * forwards it to the owner; the media socket goes through the balancer to the owner by its own address
 * (INSTANCE_PUBLIC_URL); a hang-up through the other instance ends the call at Twilio. One call.completed.
 */
import t from 'tap';
import { api, API_KEY, login, startTestServer } from '../helpers/server.js';
import { startBalancer } from '../helpers/balancer.js';
import { HOST, twilioPair } from './twilio_pair.js';
import { completedHooks, HOOK, until } from '../calls/call_commands_flows.js';

const skip = !process.env.DATABASE_URL || !process.env.REDIS_URL ? 'needs DATABASE_URL and REDIS_URL (instances share storage and the bus)' : '';
if (skip) t.plan(0, skip);
else await main();

async function main() {
  t.setTimeout(300_000);
  const SID = 'AC' + '3'.repeat(32);
  const { fake, a, b } = await twilioPair(t, { sid: SID, token: 'balancer-auth-token-0123456789ab', names: ['0', '1'] });
  const local = (s: typeof a) => `http://127.0.0.1:${s.port}`;
  const lb = await startBalancer([local(a), local(b)]);
  t.teardown(() => lb.close());
  // the public name is the balancer (as DNS would have it); Twilio signs the public URLs
  fake.tunnel = (u) => u.replace(HOST, lb.url).replace(HOST.replace('https', 'wss'), lb.url.replace('http', 'ws'));
  const key = { headers: { 'x-api-key': API_KEY } };

  t.test('a call A runs: callbacks land on B and reach A, media reaches A by its own address, B hangs it up', async (t) => {
    lb.pin = (path) => (path.startsWith('/v1/carriers/') ? 1 : undefined); // every callback to B
    const before = lb.hits[1];
    fake.plan('+14155550123', { answer: 'human', ringMs: 300 });
    const d = await api(`${local(a)}/v1`, 'POST', '/calls/dispatch', { ...key, body: { to: '+14155550123', agent_id: 'default', webhook_url: HOOK } });
    t.equal(d.status, 201, JSON.stringify(d.body));
    const id = d.body.id as string;
    const fc = await until('the call at the fake', () => fake.callTo('+14155550123'));
    t.equal(fc.streamUrl, `${HOST.replace('https', 'wss')}/i/0/v1/media/twilio`, "the TwiML names A's own media address");
    await until('the media stream', () => fc.streamSid);
    await until('A runs the session', () => a.services.callEngine.runner.live.get(id)?.session);
    t.notOk(b.services.callEngine.runner.live.has(id), 'B does not run it');
    const h = await api(`${local(b)}/v1`, 'POST', `/calls/${id}/hangup`, key);
    t.match(h.body, { status: 'completed', ended_reason: 'hangup_api' }, "answered with A's result");
    await fc.ended;
    await until('A lets the call go', () => !a.services.callEngine.runner.live.has(id));
    const call = (await api(`${local(a)}/v1`, 'GET', `/calls/${id}`, key)).body;
    t.same(call.transitions.map((x: { to: string }) => x.to), ['queued', 'dialing', 'ringing', 'in_progress', 'completed'],
      "ringing and the answer came from callbacks B received");
    t.ok(fake.requests.some((q) => q.path.endsWith(`/Calls/${fc.sid}.json`) && q.form.get('Status') === 'completed'), 'A hung up over REST');
    // (in the order their answers came: a forwarded callback may be answered after the next one)
    t.same(fc.callbacks.filter((c) => c.hook === 'status').map((c) => `${c.value} ${c.httpStatus}`).sort(),
      ['completed 204', 'in-progress 204', 'initiated 204', 'ringing 204'], 'every callback verified and acknowledged');
    t.ok(lb.hits[1] - before >= 4, 'the callbacks went to B');
    t.equal(await completedHooks(a, id), 1, 'exactly one call.completed');
    lb.pin = undefined;
  });

  t.test('a lead calls in through the balancer: the instance its Voice URL reached owns the call; tones and hang-up from the other', async (t) => {
    const admin = await login(`${local(a)}/v1`);
    t.equal((await api(`${local(a)}/v1`, 'PUT', '/inbound-numbers/+14155550150', { token: admin, body: { webhook_url: HOOK } })).status, 201);
    // the Voice URL request to B, every status callback to A
    lb.pin = (path) => (path.startsWith('/v1/carriers/twilio/voice') ? 1 : path.startsWith('/v1/carriers/') ? 0 : undefined);
    const fc = await fake.ringIn({ from: '+14155550160', to: '+14155550150', voiceUrl: `${HOST}/v1/carriers/twilio/voice`, statusUrl: `${HOST}/v1/carriers/twilio/status` });
    t.match(fc.voiceAnswer, /<Stream url="wss:\/\/voice\.example\.test\/i\/1\/v1\/media\/twilio">/, "B's answer names B's own media address");
    const id = fc.parameters.call_id;
    await until('B runs the session', () => b.services.callEngine.runner.live.get(id)?.session);
    await until('the agent speaks', () => fc.playedBytes > 0);
    const before = fc.playedBytes;
    t.equal((await api(`${local(a)}/v1`, 'POST', `/calls/${id}/tones`, { ...key, body: { digits: '1' } })).status, 202, 'tones sent to A reach B');
    await until('the tones played', () => fc.playedBytes >= before + 1600);
    const h = await api(`${local(a)}/v1`, 'POST', `/calls/${id}/hangup`, key);
    t.match(h.body, { status: 'completed', ended_reason: 'hangup_api', direction: 'inbound' });
    await fc.ended;
    await until('B lets the call go', () => !b.services.callEngine.runner.live.has(id));
    t.ok(fc.callbacks.every((c) => c.httpStatus === 204), 'every status callback acknowledged');
    t.equal(await completedHooks(a, id), 1, 'exactly one call.completed');
    lb.pin = undefined;
  });

  t.test('a forged callback landing on the other instance is refused by the owner it is forwarded to', async (t) => {
    fake.plan('+14155550124', { answer: 'human', ringMs: 300 });
    const d = await api(`${local(a)}/v1`, 'POST', '/calls/dispatch', { ...key, body: { to: '+14155550124', agent_id: 'default' } });
    const id = d.body.id as string;
    const fc = await until('the call at the fake', () => fake.callTo('+14155550124'));
    await until('A runs the session', () => a.services.callEngine.runner.live.get(id)?.session);
    const r = await fetch(`${local(b)}/v1/carriers/twilio/status?call_id=${id}`, { method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'forged' },
      body: new URLSearchParams({ CallSid: fc.sid, CallStatus: 'completed', AccountSid: SID }).toString() });
    t.equal(r.status, 403, 'the owner checks the signature of what B forwards');
    t.ok(a.services.callEngine.runner.live.get(id)?.session, 'the call goes on');
    t.equal((await api(`${lb.url}/v1`, 'POST', `/calls/${id}/hangup`, key)).body.status, 'completed');
    await fc.ended;
  });
}
