/**
 * The durable lead-call schedule: two schedulers claiming the same due jobs at once dial each lead exactly once;
 * a claim left by a dead instance is taken over after its lease, without re-dialing a lead that already has a call.
 */
import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';
import { LeadDispatcher } from '../../src/leads/dispatcher.js';
import type { LeadDispatchInput } from '../../src/leads/types.js';
import { markLeadDispatched, setClock } from '../helpers/lead_fixtures.js';

const srv = await startTestServer({ env: { LEAD_SCHEDULER_TICK_MS: '0' } });
t.teardown(() => srv.close());
const b = srv.baseUrl;
const token = await login(b);
const NIGHT = '2026-02-02T18:00:00Z'; // 23:30 IST
const MORNING = new Date('2026-02-03T04:00:00Z'); // 09:30 IST

function scheduler(instanceId: string, dialed: LeadDispatchInput[]) {
  return new LeadDispatcher({
    db: srv.services.db, log: srv.services.log, instanceId, leaseSeconds: 60, clock: () => MORNING,
    calls: () => ({ async dispatch(tenant, input) {
      dialed.push(input);
      await new Promise((r) => setTimeout(r, 5));
      const id = `call_${String(dialed.length).padStart(24, '0')}`;
      await markLeadDispatched(srv.services.db, tenant, input, id);
      return { id, status: 'queued' };
    } }),
  });
}

t.test('two schedulers, one set of due jobs: every lead dialed once', async (t) => {
  setClock(srv, NIGHT);
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await api(b, 'POST', '/leads', { token, body: { name: `L${i}`, phone: `+9198765${String(43210 + i)}`, source: 'web', domain: 'x' } });
    t.equal(r.body.call.status, 'scheduled');
    ids.push(r.body.id);
  }
  const dialed: LeadDispatchInput[] = [];
  const [a, c] = [scheduler('inst_a', dialed), scheduler('inst_b', dialed)];
  const counts = await Promise.all([a.tick(), c.tick(), a.tick(), c.tick()]);
  t.equal(counts.reduce((x, y) => x + y, 0), 20, `claims split ${counts.join('/')}`);
  t.equal(dialed.length, 20);
  t.equal(new Set(dialed.map((d) => d.lead_id)).size, 20, 'no lead dialed twice');
  for (const id of ids) t.equal((await api(b, 'GET', `/leads/${id}`, { token })).body.call.status, 'dispatched');
  t.equal(await a.tick() + await c.tick(), 0);
});

t.test('a dead instance\'s claim is taken over after the lease; an existing call is not dialed again', async (t) => {
  setClock(srv, NIGHT);
  const r1 = await api(b, 'POST', '/leads', { token, body: { name: 'A', phone: '+919876500001', source: 'web', domain: 'x' } });
  const r2 = await api(b, 'POST', '/leads', { token, body: { name: 'B', phone: '+919876500002', source: 'web', domain: 'x' } });
  // Both claimed two minutes ago by an instance that then died; lead B's call had been placed before it died.
  await srv.services.db.query(`UPDATE lead_call_jobs SET status = 'claimed', claimed_by = 'inst_dead', claimed_at = now() - interval '2 minutes' WHERE lead_id IN ($1, $2)`, [r1.body.id, r2.body.id]);
  const callId = 'call_' + 'cd'.repeat(12);
  await srv.services.db.query(`INSERT INTO calls (id, tenant_id, agent, to_number, language, status, lead_id) VALUES ($1, 'ten_dev', '{}', '+919876500002', 'en-IN', 'completed', $2)`, [callId, r2.body.id]);
  const dialed: LeadDispatchInput[] = [];
  t.equal(await scheduler('inst_c', dialed).tick(), 2);
  t.same(dialed.map((d) => d.lead_id), [r1.body.id], 'only the lead without a call is dialed');
  t.same((await api(b, 'GET', `/leads/${r2.body.id}`, { token })).body.call, { status: 'dispatched', id: callId });
});
