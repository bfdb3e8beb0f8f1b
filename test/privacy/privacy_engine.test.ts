/**
 * Privacy over data the real call engine wrote: a simulated call (SIM_TIME_SCALE 100) leaves a call row,
 * transcript events, a recording file and a call.completed outbox row; export finds them, erase removes them
 * all, including the recording file.
 */
import t from 'tap';
import { access } from 'node:fs/promises';
import { startTestServer, api, login } from '../helpers/server.js';

const srv = await startTestServer({ env: { CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0', SIM_TIME_SCALE: '100' } });
t.teardown(() => srv.close());

t.test('export and erase a subject called through the engine', async (t) => {
  const token = await login(srv.baseUrl);
  const to = '+14155550177';
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { token, body: { to, agent_id: 'default', webhook_url: 'http://127.0.0.1:9/hook' } });
  t.equal(d.status, 201, JSON.stringify(d.body));
  let call: { status: string } = { status: '' };
  for (let i = 0; i < 600 && !['completed', 'failed', 'no_answer', 'busy', 'canceled'].includes(call.status); i++) {
    await new Promise((r) => setTimeout(r, 100));
    call = (await api(srv.baseUrl, 'GET', `/calls/${d.body.id}`, { token })).body;
  }
  t.equal(call.status, 'completed');
  const row = await srv.services.db.query<{ recording_path: string | null }>('SELECT recording_path FROM calls WHERE id = $1', [d.body.id]);
  const rec = row.rows[0].recording_path;
  const exp = await api(srv.baseUrl, 'POST', '/privacy/export', { token, body: { e164: to } });
  t.equal(exp.body.tables.calls.length, 1);
  t.ok(exp.body.tables.call_events.some((e: { type: string }) => e.type === 'transcript'), 'transcripts exported');
  const er = await api(srv.baseUrl, 'POST', '/privacy/erase', { token, body: { e164: to } });
  t.equal(er.status, 200);
  t.equal(er.body.deleted.calls, 1);
  t.ok(er.body.deleted.call_events > 0);
  for (const table of ['calls', 'call_events', 'call_transitions', 'webhook_outbox']) {
    const n = await srv.services.db.query(`SELECT 1 FROM ${table} WHERE ${table === 'calls' ? 'id' : 'call_id'} = $1`, [d.body.id]);
    t.equal(n.rows.length, 0, `${table}: nothing left`);
  }
  if (rec) {
    t.equal(er.body.deleted.recording_files, 1);
    await t.rejects(access(rec), 'recording file deleted');
  } else t.comment('this engine build stored no recording');
});
