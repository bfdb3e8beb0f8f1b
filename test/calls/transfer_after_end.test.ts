/**
 * A transfer racing the call's end: the escalation is marked only while the call is not over, so a call whose end
 * (and its call.completed webhook, read with it) came first answers 409 and stays unescalated, instead of turning
 * human_escalation true after the webhook said false.
 */
import t from 'tap';
import { API_KEY, api, startTestServer, waitForCallEnd } from '../helpers/server.js';

const srv = await startTestServer({ env: { SIM_TIME_SCALE: '10' } });
t.teardown(() => srv.close());
const key = { 'x-api-key': API_KEY };

t.test('a transfer whose read of the call predates its end: 409, no escalation, no transfer item', async (t) => {
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { headers: key, body: { to: '+15005550006', agent_id: 'default' } });
  t.equal(d.status, 201);
  const ended = await waitForCallEnd(srv.baseUrl, d.body.id, key);
  t.equal(ended.human_escalation, false);
  // the transfer read the call while it was still live; the end committed before the transfer's write
  const repo = srv.services.calls.repo;
  const get = repo.get.bind(repo);
  repo.get = async (...a: Parameters<typeof get>) => { const row = await get(...a); return row && { ...row, status: 'in_progress' }; };
  t.teardown(() => { repo.get = get; });
  const r = await api(srv.baseUrl, 'POST', `/calls/${d.body.id}/transfer`, { headers: key, body: {} });
  repo.get = get;
  t.equal(r.status, 409);
  t.equal(r.body.code, 'conflict');
  const after = await api(srv.baseUrl, 'GET', `/calls/${d.body.id}`, { headers: key });
  t.equal(after.body.human_escalation, false, 'still as the webhook said');
  const items = await api(srv.baseUrl, 'GET', `/calls/${d.body.id}/events`, { headers: key });
  t.notOk(items.body.data.some((i: { type: string }) => i.type === 'transfer'), 'no transfer item after the end');
});

t.test('a call not over is still transferred', async (t) => {
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { headers: key, body: { to: '+15005550006', agent_id: 'default' } });
  let r;
  for (let i = 0; i < 200; i++) {
    r = await api(srv.baseUrl, 'POST', `/calls/${d.body.id}/transfer`, { headers: key, body: {} });
    if (r.status === 200) break;
    await new Promise((res) => setTimeout(res, 20));
  }
  t.equal(r?.status, 200, JSON.stringify(r?.body));
  await waitForCallEnd(srv.baseUrl, d.body.id, key);
  const after = await api(srv.baseUrl, 'GET', `/calls/${d.body.id}`, { headers: key });
  t.equal(after.body.human_escalation, true);
});
