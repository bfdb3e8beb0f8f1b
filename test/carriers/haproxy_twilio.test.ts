/**
 * The README's HAProxy configuration (docs/haproxy.cfg), run by the real HAProxy in front of two instances on
 * PostgreSQL and Redis: only the addresses are changed (bind and the two servers). A Twilio call placed by
 * instance a: its signed callbacks alternate between the instances (round robin) and all reach a, its media
 * socket goes to a through /i/a/ (INSTANCE_PUBLIC_URL), a live stream and the hang-up go through the balancer.
 * Skipped without DATABASE_URL, REDIS_URL or the haproxy binary (Debian: apt-get install haproxy).
 */
import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, API_KEY, login, startTestServer } from '../helpers/server.js';
import { connect } from '../stream/helpers.js';
import { HOST, twilioPair } from './twilio_pair.js';
import { completedHooks, HOOK, until } from '../calls/call_commands_flows.js';
import { freePort } from '../../bench/live_setup.js';

const haproxy = spawnSync('haproxy', ['-v']).status === 0;
const skip = !process.env.DATABASE_URL || !process.env.REDIS_URL ? 'needs DATABASE_URL and REDIS_URL' : !haproxy ? 'needs haproxy' : '';
if (skip) t.plan(0, skip);
else await main();

async function main() {
  t.setTimeout(300_000);
  const { fake, a, b } = await twilioPair(t, { sid: 'AC' + '4'.repeat(32), token: 'haproxy-auth-token-0123456789abc', names: ['a', 'b'], env: { TRUST_PROXY: 'loopback' } });

  const port = await freePort();
  const cfg = readFileSync(fileURLToPath(new URL('../../docs/haproxy.cfg', import.meta.url)), 'utf8')
    .replace('bind :8080', `bind 127.0.0.1:${port}`)
    .replaceAll('10.0.0.11:8787', `127.0.0.1:${a.port}`).replaceAll('10.0.0.12:8787', `127.0.0.1:${b.port}`);
  const cfgPath = join(tmpdir(), `voicecall-haproxy-${process.pid}.cfg`);
  writeFileSync(cfgPath, cfg);
  const proc = spawn('haproxy', ['-db', '-f', cfgPath], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => { proc.kill('SIGKILL'); });
  const lb = `http://127.0.0.1:${port}`;
  await until('haproxy listening and both servers up', async () => {
    const r = await fetch(`${lb}/v1/health`).catch(() => undefined);
    return r?.status === 200;
  }, 30_000);
  fake.tunnel = (u) => u.replace(HOST, lb).replace(HOST.replace('https', 'wss'), lb.replace('http', 'ws'));
  const key = { headers: { 'x-api-key': API_KEY } };

  t.test('a Twilio call of instance a behind HAProxy: callbacks from both, media to a, hang-up and live stream through it', async (t) => {
    fake.plan('+14155550125', { answer: 'human', ringMs: 300 });
    const d = await api(`http://127.0.0.1:${a.port}/v1`, 'POST', '/calls/dispatch', { ...key, body: { to: '+14155550125', agent_id: 'default', webhook_url: HOOK } });
    t.equal(d.status, 201, JSON.stringify(d.body));
    const id = d.body.id as string;
    const fc = await until('the call at the fake', () => fake.callTo('+14155550125'));
    t.equal(fc.streamUrl, 'wss://voice.example.test/i/a/v1/media/twilio');
    await until('the media stream through HAProxy', () => fc.streamSid);
    await until('a runs the session', () => a.services.callEngine.runner.live.get(id)?.session);
    const jwt = await login(`${lb}/v1`);
    const listener = await connect(`${lb.replace('http', 'ws')}/v1/calls/${id}/stream`, { authorization: `Bearer ${jwt}` });
    t.ok(listener.ws, 'a live stream through HAProxy');
    const h = await api(`${lb}/v1`, 'POST', `/calls/${id}/hangup`, key);
    t.match(h.body, { status: 'completed', ended_reason: 'hangup_api' });
    await fc.ended;
    await new Promise((r) => (listener.ws!.readyState === listener.ws!.CLOSED ? r(0) : listener.ws!.once('close', r)));
    const call = (await api(`${lb}/v1`, 'GET', `/calls/${id}`, key)).body;
    t.same(call.transitions.map((x: { to: string }) => x.to), ['queued', 'dialing', 'ringing', 'in_progress', 'completed']);
    t.same(fc.callbacks.filter((c) => c.hook === 'status').map((c) => `${c.value} ${c.httpStatus}`).sort(),
      ['completed 204', 'in-progress 204', 'initiated 204', 'ringing 204'], 'every callback verified and acknowledged');
    await until('a lets the call go', () => !a.services.callEngine.runner.live.has(id));
    t.equal(await completedHooks(a, id), 1, 'exactly one call.completed');
  });
}
