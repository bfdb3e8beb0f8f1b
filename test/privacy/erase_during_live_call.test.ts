/**
 * What broke: POST /v1/privacy/erase answered 409 while the subject had a call in progress. An erasure request now
 * succeeds in one request: the live call is ended through the call engine's hang-up path (ended_reason erased),
 * then the subject is erased and the erasure audited.
 */
import t from 'tap';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';
import { subjectHash } from '../../src/privacy/subject.js';
import type { EndedCall } from '../../src/calls/service.js';

const srv = await startTestServer({ env: { SIM_TIME_SCALE: '1' } });
t.teardown(() => srv.close());
const admin = await login(srv.baseUrl);
const auth = { headers: { 'x-api-key': API_KEY } };
const ended: EndedCall[] = [];
srv.services.calls.onCallEnded((c) => ended.push(c));

t.test('a call in progress is hung up with ended_reason erased, then everything of the subject is erased', async (t) => {
  const to = '+14155550142'; // reserved for fiction: no calling hours, a cooperative simulated callee
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to, agent_id: 'default' } });
  t.equal(d.status, 201);
  for (let i = 0; i < 200; i++) {
    const c = await api(srv.baseUrl, 'GET', `/calls/${d.body.id}`, auth);
    if (c.body.status === 'in_progress') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  t.equal((await api(srv.baseUrl, 'GET', `/calls/${d.body.id}`, auth)).body.status, 'in_progress', 'the call is live');
  const r = await api(srv.baseUrl, 'POST', '/privacy/erase', { token: admin, body: { e164: to } });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.same(r.body.ended_calls, [d.body.id]);
  t.equal(r.body.deleted.calls, 1);
  t.ok(r.body.deleted.call_events > 0, 'its transcript went too');
  t.match(ended.find((c) => c.id === d.body.id), { status: 'completed', ended_reason: 'erased' }, 'ended by the runner, through the hang-up path');
  t.equal((await api(srv.baseUrl, 'GET', `/calls/${d.body.id}`, auth)).status, 404);
  const left = await srv.services.db.query('SELECT count(*)::int AS n FROM call_events WHERE call_id = $1', [d.body.id]);
  t.equal(left.rows[0].n, 0, 'nothing written for it after the erasure');
  const audit = (await api(srv.baseUrl, 'GET', '/privacy/audit', { token: admin })).body.data[0];
  t.match(audit, { action: 'erase', subject_hash: subjectHash(to), counts: { ended_calls: 1, deleted: { calls: 1 } } });
});
