/**
 * A call answered at the carrier whose media stream has not arrived yet still ends at once on a hang-up or a
 * shutdown: before, the runner kept waiting for the stream (up to the media wait), and close() hung on it.
 */
import t from 'tap';
import { API_KEY, api, startTestServer } from '../helpers/server.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const engine = srv.services.callEngine;
// the runner's deps: a long media wait, and callees that never dial in
const deps = (engine.runner as unknown as { d: { mediaWaitMs?: number; callees: { launch(o: unknown): void } } }).d;
deps.mediaWaitMs = 60_000;
deps.callees = { ...deps.callees, launch: () => {} };
const auth = { headers: { 'x-api-key': API_KEY } };

async function statusOf(id: string, until: (s: string) => boolean, ms = 5_000) {
  const end = Date.now() + ms;
  for (;;) {
    const c = (await api(srv.baseUrl, 'GET', `/calls/${id}`, auth)).body;
    if (until(c.status) || Date.now() > end) return c;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function answeredCall(): Promise<string> {
  const r = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+14155550123', agent_id: 'default' } });
  const c = await statusOf(r.body.id, (s) => s === 'in_progress');
  if (c.status !== 'in_progress') throw new Error(`call did not get answered: ${c.status}`);
  return r.body.id;
}

t.test('a hang-up while the media stream is awaited ends the call at once', async (t) => {
  const id = await answeredCall();
  t.ok(engine.runner.live.has(id), 'the runner is waiting for its media');
  t.equal((await api(srv.baseUrl, 'POST', `/calls/${id}/hangup`, auth)).status, 200);
  const c = await statusOf(id, (s) => s !== 'in_progress');
  t.match(c, { status: 'completed', ended_reason: 'hangup_api' }, 'not left in_progress until the media wait ran out');
});

t.test('shutdown does not wait for a media stream that will not come', async (t) => {
  const id = await answeredCall();
  const closed = await Promise.race([engine.close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('still closing after 5 s'), 5_000))]);
  t.equal(closed, 'closed');
  const c = await statusOf(id, (s) => s !== 'in_progress');
  t.match(c, { status: 'completed', ended_reason: 'server_shutdown' });
});
