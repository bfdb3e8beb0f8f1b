/**
 * Simulator mode end to end over the real media WebSocket, in real speech (the embedded default): the agent speaks
 * the offline voice, the callee answers as its persona in its own offline voice, and the agent hears it through the
 * grammar ears. A cooperative call whose persona's answers are recognised and that completes with a signed
 * call.completed webhook (verified with the standardwebhooks package), and a barge-in; each magic number's outcome
 * is in e2e_sim_outcomes.test.ts (a file of its own: real speech costs CPU, and each file has its own time limit).
 */
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { API_KEY, api, login, startTestServer, waitForCallEnd } from '../helpers/server.js';
import { webhookReceiver } from '../helpers/webhook_receiver.js';
import { SimulatedCallee } from '../../src/adapters/index.js';

// recognition is CPU work measured in wall time: on a test machine running other suites a turn's deadline is wider;
// at 5x, a render or a decode waiting for a busy core moves the callee's barge-in by half the media time it would at 10x
const srv = await startTestServer({ env: { SIM_SPEECH: 'offline', SIM_TIME_SCALE: '5', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_POLL_MS: '50', ADAPTER_TIMEOUT_MS: '8000' } });
t.teardown(() => srv.close());
// real speech is CPU work per turn: more than the default 120 s per file on a machine running other suites
t.setTimeout(300_000);
const { received, url: hookUrl } = await webhookReceiver(t);
const auth = { headers: { 'x-api-key': API_KEY } };

const waitEnded = (id: string) => waitForCallEnd(srv.baseUrl, id, auth.headers);

t.test('cooperative callee: heard, qualified, booked, signed webhook with measured figures', async (t) => {
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: {
    to: '+14155550123', agent_id: 'default', language: 'en-US',
    tools: ['calendar_booking', 'crm_sync'], webhook_url: hookUrl } });
  t.equal(d.status, 201);
  t.match(d.body, { id: /^call_[0-9a-f]{24}$/, status: 'dialing' });
  const call = await waitEnded(d.body.id);
  t.equal(call.status, 'completed');
  t.equal(call.ended_reason, 'completed');
  t.ok(call.metrics.turn_count >= 3, `turns measured (${call.metrics.turn_count})`);
  // the persona (deterministic per call id) said its name and budget aloud; the ears heard them
  const persona = new SimulatedCallee(d.body.id, 'cooperative').persona;
  const heard = await srv.services.db.query<{ text: string }>(
    'SELECT m.text FROM conversation_messages m JOIN calls c ON c.conversation_id = m.conversation_id WHERE c.id = $1 AND m.role = $2 ORDER BY m.id', [d.body.id, 'caller']);
  const callerText = heard.rows.map((r) => r.text).join(' | ');
  t.match(callerText, `my name is ${persona.name.toLowerCase()}`, 'the name, recognised');
  t.match(callerText, persona.budget, 'the budget, recognised');
  t.equal(call.extracted_data.customer_name, persona.name, 'name extracted from what was heard');
  t.ok(call.extracted_data.budget, `budget extracted (${call.extracted_data.budget})`);
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
