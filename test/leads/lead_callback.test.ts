/**
 * Issue 33, "call me later": a lead who asks to be called back gets a lead call job due at the time asked; the
 * scheduler dials it then (not before), although the lead already has a call, and its gates still apply.
 */
import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';
import { LeadDispatcher } from '../../src/leads/dispatcher.js';
import { scheduleCallback } from '../../src/leads/callback.js';
import type { LeadDispatchInput } from '../../src/leads/types.js';
import { markLeadDispatched, setClock } from '../helpers/lead_fixtures.js';

const srv = await startTestServer({ env: { LEAD_SCHEDULER_TICK_MS: '0' } });
t.teardown(() => srv.close());
const b = srv.baseUrl;
const token = await login(b);

function scheduler(clock: Date, dialed: LeadDispatchInput[]) {
  return new LeadDispatcher({
    db: srv.services.db, log: srv.services.log, instanceId: 'inst_cb', leaseSeconds: 60, clock: () => clock,
    calls: () => ({ async dispatch(tenant, input) {
      dialed.push(input);
      const id = `call_${'ab'.repeat(11)}${String(dialed.length).padStart(2, '0')}`;
      await markLeadDispatched(srv.services.db, tenant, input, id);
      return { id, status: 'queued' };
    } }),
  });
}

t.test('a call-back is dialed at the time asked, after the first call', async (t) => {
  setClock(srv, '2026-02-03T05:00:00Z'); // 10:30 IST: dialed at once
  const lead = await api(b, 'POST', '/leads', { token, body: { name: 'Ravi', phone: '+919876511111', source: 'web', domain: 'Lakeview' } });
  t.equal(lead.body.call.status, 'dispatched');
  const at = new Date('2026-02-04T11:30:00Z'); // 17:00 IST the next day, as the dialog recorded callback_at
  await scheduleCallback(srv.services.db, 'ten_dev', lead.body.id, at);
  t.match((await api(b, 'GET', `/leads/${lead.body.id}`, { token })).body.call, { status: 'scheduled', scheduled_for: at.toISOString() });
  const early: LeadDispatchInput[] = [];
  t.equal(await scheduler(new Date('2026-02-04T11:00:00Z'), early).tick(), 0, 'not before the time asked');
  const due: LeadDispatchInput[] = [];
  t.equal(await scheduler(new Date('2026-02-04T11:31:00Z'), due).tick(), 1);
  t.same(due.map((d) => d.lead_id), [lead.body.id], 'dialed again although the lead already had a call');
});
