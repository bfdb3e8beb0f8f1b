/**
 * Simulator mode end to end over the real media WebSocket: each magic number's outcome, and a cooperative call
 * that completes with a signed call.completed webhook (verified with the standardwebhooks package).
 */
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { API_KEY, api, login, startTestServer, waitForCallEnd } from '../helpers/server.js';
import { webhookReceiver } from '../helpers/webhook_receiver.js';

const srv = await startTestServer({ env: { SIM_TIME_SCALE: '10', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_POLL_MS: '50' } });
t.teardown(() => srv.close());
const { received, url: hookUrl } = await webhookReceiver(t);
const auth = { headers: { 'x-api-key': API_KEY } };

const waitEnded = (id: string) => waitForCallEnd(srv.baseUrl, id, auth.headers);

t.test('cooperative callee: qualified, booked, signed webhook with measured figures', async (t) => {
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: {
    to: '+14155550123', agent_id: 'default', language: 'en-US', context: { customer_name: 'Lee' },
    tools: ['calendar_booking', 'crm_sync'], webhook_url: hookUrl } });
  t.equal(d.status, 201);
  t.match(d.body, { id: /^call_[0-9a-f]{24}$/, status: 'dialing' });
  const call = await waitEnded(d.body.id);
  t.equal(call.status, 'completed');
  t.equal(call.ended_reason, 'completed');
  t.ok(call.metrics.turn_count >= 3, `turns measured (${call.metrics.turn_count})`);
  t.ok(call.extracted_data.customer_name, 'name extracted');
  t.match(call.extracted_data.scheduled_slot, /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?([+-]\d\d:\d\d|Z)$/);
  t.ok(call.actions_triggered.some((a: { type: string }) => a.type === 'calendar.event.create'));
  t.same(call.transitions.map((x: { to: string }) => x.to), ['queued', 'dialing', 'in_progress', 'completed']);
  for (let i = 0; i < 100 && !received.some((r) => r.body.includes(d.body.id)); i++) await new Promise((r) => setTimeout(r, 50));
  const hook = received.find((r) => r.body.includes(d.body.id));
  t.ok(hook, 'webhook received');
  const token = await login(srv.baseUrl);
  const secret = (await api(srv.baseUrl, 'GET', '/webhooks/secret', { token })).body.secret;
  const payload = new Webhook(secret).verify(hook!.body, hook!.headers) as Record<string, unknown>;
  t.same(Object.keys(payload).sort(), ['actions_triggered', 'agent_id', 'call_id', 'disclosure_delivered_at', 'duration_seconds', 'ended_reason', 'event',
    'extracted_data', 'human_escalation', 'metrics', 'recording_url', 'status', 'summary', 'summary_source', 'timestamp'].sort());
  // issue 33: a post-call summary, the same in the webhook and the call record; the visit is said booked (the tool ran)
  t.match(payload.summary, /is looking for .+, with a budget of .+\. Next step: site visit at \S+ \(booked\)\./);
  t.equal(payload.summary, call.summary);
  t.equal(payload.summary_source, 'fields', 'the scripted engine writes no summary of its own: built from the fields');
  t.match(payload.disclosure_delivered_at, /^\d{4}-\d\d-\d\dT.*Z$/, 'the AI disclosure was delivered in full, and when');
  t.equal(payload.disclosure_delivered_at, call.disclosure_delivered_at, 'the same in the call record');
  t.equal(payload.event, 'call.completed');
  t.match(payload.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.equal((payload.metrics as { turn_count: number }).turn_count, call.metrics.turn_count);
  const wav = await fetch(String(payload.recording_url));
  t.equal(wav.status, 200, 'recording link works without a JWT');
  const bytes = new Uint8Array(await wav.arrayBuffer());
  const view = new DataView(bytes.buffer);
  t.equal(view.getUint16(22, true), 2, 'two channels');
  t.equal(view.getUint32(40, true), bytes.length - 44, 'the header, patched at the end of the call, gives the data size');
  const energy = [0, 0];
  for (let o = 44; o + 4 <= bytes.length; o += 4) { energy[0] += Math.abs(view.getInt16(o, true)); energy[1] += Math.abs(view.getInt16(o + 2, true)); }
  t.ok(energy[0] > 0 && energy[1] > 0, 'the caller and the agent are both heard');
  t.ok((bytes.length - 44) / 4 >= call.metrics.frames_in * 160, 'every caller frame is in it');
  const bad = await fetch(String(payload.recording_url).replace(/sig=[^&]+/, 'sig=AAAA'));
  t.equal(bad.status, 403);
  const log = await api(srv.baseUrl, 'GET', `/calls/${d.body.id}/webhooks`, auth);
  t.equal(log.body.data[0].state, 'delivered');
});

const outcomes: Array<[string, string, string | RegExp]> = [
  ['+15005550001', 'no_answer', 'no_answer'],
  ['+15005550002', 'busy', 'busy'],
  ['+15005550003', 'failed', 'carrier_failed'],
  ['+15005550004', 'completed', 'voicemail'],
  ['+15005550005', 'completed', /caller_hangup|media_closed/],
  // waits on hold for an operator (the tenant's default 60 s), nobody takes it: the call-back offer
  ['+15005550007', 'completed', 'escalation_unanswered'],
  // issue 33: a silent callee is asked once whether they are still there, then the call ends (it used to escalate)
  ['+15005550008', 'completed', 'no_response'],
];
for (const [to, status, reason] of outcomes) {
  t.test(`magic number ${to} -> ${status}`, async (t) => {
    const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to, agent_id: 'default' } });
    t.equal(d.status, 201);
    const call = await waitEnded(d.body.id);
    t.equal(call.status, status);
    t.match(call.ended_reason, reason);
    if (to === '+15005550007') t.equal(call.human_escalation, true);
    if (to === '+15005550008') t.equal(call.human_escalation, false, 'nobody to hand a silent line to');
  });
}

t.test('barge-in: clear sent, agent reply truncated, interruption counted', async (t) => {
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+15005550006', agent_id: 'default' } });
  const call = await waitEnded(d.body.id);
  t.equal(call.status, 'completed');
  t.ok(call.metrics.interruptions_handled >= 1, `interruptions ${call.metrics.interruptions_handled}`);
  const msgs = await srv.services.db.query<{ role: string; text: string; meta: { truncated?: boolean } }>(
    'SELECT m.role, m.text, m.meta FROM conversation_messages m JOIN calls c ON c.conversation_id = m.conversation_id WHERE c.id = $1 ORDER BY m.id', [d.body.id]);
  const cut = msgs.rows.find((m) => m.role === 'agent' && m.meta.truncated);
  t.ok(cut, 'a truncated agent message');
  t.ok(cut && cut.text.length < 200 && !cut.text.includes('recorded.'), `kept only the heard part: ${cut?.text}`);
});
