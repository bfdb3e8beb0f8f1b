/**
 * Simulated calls (the default simulator carrier over the real media socket) with live providers against local
 * fakes: TTS_PROVIDER=elevenlabs speaks every agent sentence (the fake renders SimVoice so the simulated callee
 * understands it), and a barge-in aborts the synthesis in flight, which the fake sees as a request gone away; and
 * a call whose crm_sync, calendar_booking and messaging_brochure statuses in call.completed are the answers of
 * the HubSpot, Cal.com and WhatsApp fakes.
 */
import t from 'tap';
import { createServer } from 'node:http';
import { encodeSimVoice } from '../../src/simvoice/index.js';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';
import { startElevenLabsFake } from '../fakes/elevenlabs.js';
import { startHubSpotFake } from '../fakes/hubspot.js';
import { startCalComFake } from '../fakes/calcom.js';
import { startWhatsAppFake } from '../fakes/whatsapp.js';

const TIME_SCALE = 5;
// This callee talks over the agent's second utterance (the disclosure and first question run together as its
// first): a question long enough to be cut while it is still being rendered.
const longQuestion = 'Thank you. And could you tell me, in as much detail as you like, what kind of home you are looking for and which neighbourhoods you have in mind?';
const eleven = await startElevenLabsFake({
  apiKey: 'sk_e2e', render: (text, rateHz) => encodeSimVoice(text, { sampleRateHz: rateHz, voice: 'alloy' }),
  // the long sentence renders 8 s of its 9.9 s and then waits, so it is always cut mid-request; the callee talks over
  // it after three words, with 7 s of it still to play (1.4 s of wall time at 5x: a paced fake at 10x lost that race)
  chunkBytes: 400, stallWhen: { text: (text) => text.length > 20 && longQuestion.endsWith(text), afterBytes: 64_000 },
});
const hubspot = await startHubSpotFake({ token: 'pat-e2e' });
const calcom = await startCalComFake({ apiKey: 'cal_e2e', eventTypeId: 77, emailRequired: false });
const whatsapp = await startWhatsAppFake({ token: 'EAA-e2e', phoneNumberId: '555000', templates: { project_brochure: 1 } });
const hooks: string[] = [];
const receiver = createServer((req, res) => { let b = ''; req.on('data', (c) => (b += c)); req.on('end', () => { hooks.push(b); res.writeHead(204).end(); }); });
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const srv = await startTestServer({ env: {
  SIM_TIME_SCALE: String(TIME_SCALE), WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_POLL_MS: '50',
  TTS_PROVIDER: 'elevenlabs', ELEVENLABS_API_KEY: 'sk_e2e', ELEVENLABS_VOICE_ID: 'JBFqnCBsd6RMkjVDRZzb', ELEVENLABS_API_URL: eleven.url,
  HUBSPOT_API_KEY: 'pat-e2e', HUBSPOT_API_URL: hubspot.url,
  CALCOM_API_KEY: 'cal_e2e', CALCOM_API_URL: calcom.url, CALCOM_EVENT_TYPE_ID: '77',
  WHATSAPP_API_TOKEN: 'EAA-e2e', WHATSAPP_PHONE_NUMBER_ID: '555000', WHATSAPP_TEMPLATE_NAME: 'project_brochure',
  WHATSAPP_TEMPLATE_PARAMS: 'customer_name', WHATSAPP_API_URL: `${whatsapp.url}/v21.0`,
} });
t.teardown(async () => {
  await srv.close();
  await Promise.all([eleven.close(), hubspot.close(), calcom.close(), whatsapp.close()]);
  await new Promise<void>((r) => receiver.close(() => r()));
});
const auth = { headers: { 'x-api-key': API_KEY } };

async function callTo(to: string, body: Record<string, unknown> = {}) {
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to, agent_id: 'default', language: 'en-US', ...body } });
  if (d.status !== 201) throw new Error(`dispatch ${d.status}: ${JSON.stringify(d.body)}`);
  const until = Date.now() + 60_000;
  for (;;) {
    const r = await api(srv.baseUrl, 'GET', `/calls/${d.body.id}`, auth);
    if (['completed', 'no_answer', 'busy', 'failed', 'canceled'].includes(r.body.status)) return r.body;
    if (Date.now() > until) throw new Error(`call still ${r.body.status}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

t.test('the integrations report live', async (t) => {
  const r = await api(srv.baseUrl, 'GET', '/integrations', { token: await login(srv.baseUrl) });
  const bySlot = Object.fromEntries(r.body.data.map((s: { slot: string; mode: string }) => [s.slot, s.mode]));
  t.match(bySlot, { text_to_speech: 'live', crm: 'live', calendar: 'live', messaging: 'live' });
});

t.test('barge-in with ElevenLabs speaking: the synthesis in flight is aborted and the fake sees it', async (t) => {
  const put = await api(srv.baseUrl, 'PUT', '/agents/long_questions', { token: await login(srv.baseUrl), body: {
    name: 'Long questions', disclosure_script: 'Hello, this is an AI assistant from Acme, and this call may be recorded.',
    qualify_script: [{ field: 'customer_name', question: 'May I have your name?' }, { field: 'intent', question: longQuestion }],
    role: 'qualifier', voice: 'aria', language: 'en-US' } });
  t.equal(put.status, 201, JSON.stringify(put.body));
  const before = eleven.requests.length;
  const call = await callTo('+15005550006', { agent_id: 'long_questions' });
  t.equal(call.status, 'completed');
  t.ok(call.metrics.interruptions_handled >= 1, `interruptions ${call.metrics.interruptions_handled}`);
  const mine = eleven.requests.slice(before);
  t.ok(mine.length >= 2, `the agent spoke through ElevenLabs (${mine.length} requests)`);
  t.ok(mine.every((r) => r.outputFormat === 'ulaw_8000' && r.voiceId === 'JBFqnCBsd6RMkjVDRZzb'), 'telephone mu-law, the configured voice');
  const aborted = mine.filter((r) => r.aborted);
  // the chunker sends "Thank you." on its own; the long sentence after it is the one talked over
  t.ok(aborted.some((r) => longQuestion.endsWith(String(r.body.text))), 'the long question was cancelled mid-stream by the barge-in');
  for (const r of aborted) t.ok(r.bytesSent > 0, `it had started streaming (${r.bytesSent} bytes) before it was cut`);
});

t.test("tools in call.completed carry the fakes' real answers", async (t) => {
  const call = await callTo('+15005550009', { context: { customer_name: 'Lee' }, tools: ['calendar_booking', 'crm_sync', 'messaging_brochure'] });
  t.equal(call.status, 'completed');
  const byType = Object.fromEntries(call.actions_triggered.map((a: { type: string; status: string }) => [a.type, a.status]));
  t.equal(byType['messaging.template.send'], '200_ok', 'WhatsApp answered 200');
  t.equal(whatsapp.sent.length, 1);
  t.equal(whatsapp.sent[0].to, '15005550009', 'sent to the number called');
  if (byType['calendar.event.create']) {
    t.equal(byType['calendar.event.create'], '201_created', 'Cal.com answered 201');
    t.equal(calcom.bookings.length, 1);
    t.match(calcom.bookings[0], { start: /Z$/, attendees: [{ phoneNumber: '+15005550009' }], metadata: { call_id: call.id } });
  }
  t.equal(byType['crm.lead.update'], '201_created', 'HubSpot created the contact');
  t.same([...hubspot.contacts.values()].map((c) => c.phone), ['+15005550009']);
});

t.test('a failing integration is recorded and the call still completes', async (t) => {
  hubspot.injectNext({ status: 401, body: { status: 'error', message: 'expired token', category: 'INVALID_AUTHENTICATION' } });
  calcom.injectNext({ status: 500, body: { status: 'error', error: { code: 'InternalServerErrorException', message: 'boom' } } });
  const call = await callTo('+14155550123', { context: { customer_name: 'Lee' }, tools: ['calendar_booking', 'crm_sync'] });
  t.equal(call.status, 'completed');
  t.equal(call.ended_reason, 'completed');
  const byType = Object.fromEntries(call.actions_triggered.map((a: { type: string; status: string }) => [a.type, a.status]));
  t.equal(byType['crm.lead.update'], '401_unauthorized');
  t.equal(byType['calendar.event.create'], '500_internal_error');
  for (let i = 0; i < 100 && !hooks.some((h) => h.includes(call.id)); i++) await new Promise((r) => setTimeout(r, 50));
});

t.test('a synthesis that stalls mid-sentence: cancelled at the deadline, the call speaks its fallback and ends cleanly', async (t) => {
  const before = eleven.requests.length;
  eleven.stallNextAfter(1600);
  const call = await callTo('+14155550123');
  t.equal(call.status, 'completed');
  t.equal(call.ended_reason, 'adapter_failure', 'a clear reason, not a hang');
  t.ok(call.metrics.fallbacks >= 1, `fallback counted (${call.metrics.fallbacks})`);
  const stalled = eleven.requests[before];
  t.equal(stalled.bytesSent, 1600);
  t.equal(stalled.aborted, true, 'the stalled request was cancelled, not left open');
});
