/**
 * A whole call in SERVICE_MODE=live with every slot served by its real provider against the local protocol fakes:
 * Twilio places the call and streams the caller's audio, Deepgram gives the caller's words, the Chat Completions
 * fake answers with streamed text and tool calls (record the fields, book the slot, sync the CRM, send the
 * brochure, end the call), ElevenLabs renders each sentence as mu-law for the phone, and HubSpot, Cal.com and
 * WhatsApp answer the integrations. The signed call.completed webhook must carry what the model recorded and the
 * fakes' real statuses. Then the demo loop through the same providers: a text turn with reply_audio and an audio
 * turn transcribed by Deepgram.
 */
import t from 'tap';
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { mulawEncode, writeWav } from '../../src/audio/index.js';
import { api, login, startTestServer } from '../helpers/server.js';
import { FakeTwilio } from '../fakes/twilio.js';
import { startFakeDeepgram } from '../fakes/deepgram.js';
import { startFakeChat, textReply, toolCallReply, type FakeReply } from '../fakes/openai_chat.js';
import { startElevenLabsFake } from '../fakes/elevenlabs.js';
import { startHubSpotFake } from '../fakes/hubspot.js';
import { startCalComFake } from '../fakes/calcom.js';
import { startWhatsAppFake } from '../fakes/whatsapp.js';
import { auth, waitFor, ENDED } from './live_env.js';

const SID = 'AC' + '7'.repeat(32);
const TOKEN = 'all-fakes-auth-token-0123456789ab';
const PUBLIC = 'https://voice.example.test/v1';
const CALLER_LINE = 'Hi, I am Asha Rao, I want a villa around eighty lakh and can visit Tuesday at ten.';
const DEMO_LINE = 'I am asking from the demo page.';
const SLOT = '2026-12-01T10:00:00+05:30';
const TO = '+14155550123';

const twilioFake = await new FakeTwilio(SID, TOKEN).start();
const deepgram = await startFakeDeepgram({ apiKey: 'dg-all-fakes', script: [CALLER_LINE, DEMO_LINE], silenceFinalMs: 1000 });
const chat = await startFakeChat({ apiKey: 'sk-all-fakes' });
const eleven = await startElevenLabsFake({ apiKey: 'sk_all_fakes' });
const hubspot = await startHubSpotFake({ token: 'pat-all-fakes' });
const calcom = await startCalComFake({ apiKey: 'cal_all_fakes', eventTypeId: 88, emailRequired: false });
const whatsapp = await startWhatsAppFake({ token: 'EAA-all-fakes', phoneNumberId: '777000', templates: { project_brochure: 1 } });
const hooks: Array<{ headers: Record<string, string>; body: string }> = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => { hooks.push({ headers: req.headers as Record<string, string>, body }); res.writeHead(204).end(); });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
const srv = await startTestServer({ env: {
  SERVICE_MODE: 'live', PUBLIC_BASE_URL: PUBLIC, RING_TIMEOUT_SECONDS: '10', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_POLL_MS: '50',
  CARRIER: 'twilio', TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_FROM_NUMBER: '+14155550100', TWILIO_API_BASE_URL: twilioFake.baseUrl,
  STT_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: 'dg-all-fakes', DEEPGRAM_API_URL: deepgram.url,
  DIALOG_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-all-fakes', OPENAI_BASE_URL: chat.baseUrl, OPENAI_MODEL: 'local-model',
  // a loaded 2-core machine: the model's items must not miss the per-item deadline and fall back to the script
  ADAPTER_TIMEOUT_MS: '8000',
  TTS_PROVIDER: 'elevenlabs', ELEVENLABS_API_KEY: 'sk_all_fakes', ELEVENLABS_VOICE_ID: 'JBFqnCBsd6RMkjVDRZzb', ELEVENLABS_API_URL: eleven.url,
  HUBSPOT_API_KEY: 'pat-all-fakes', HUBSPOT_API_URL: hubspot.url,
  CALCOM_API_KEY: 'cal_all_fakes', CALCOM_API_URL: calcom.url, CALCOM_EVENT_TYPE_ID: '88',
  WHATSAPP_API_TOKEN: 'EAA-all-fakes', WHATSAPP_PHONE_NUMBER_ID: '777000', WHATSAPP_TEMPLATE_NAME: 'project_brochure',
  WHATSAPP_TEMPLATE_PARAMS: 'customer_name', WHATSAPP_API_URL: `${whatsapp.url}/v21.0`,
} });
t.teardown(async () => {
  await srv.close();
  await Promise.all([twilioFake.close(), deepgram.close(), chat.close(), eleven.close(), hubspot.close(), calcom.close(), whatsapp.close()]);
  await new Promise<void>((r) => receiver.close(() => r()));
});
/** where the service really listens (srv.baseUrl is the public address) */
const LOCAL = `http://127.0.0.1:${srv.port}/v1`;
twilioFake.tunnel = (u) => u.replace(PUBLIC, LOCAL).replace(PUBLIC.replace('https', 'wss'), LOCAL.replace('http', 'ws'));
const admin = await login(LOCAL);

/** mu-law 8 kHz: a loud steady tone (speech to the fake recogniser, which only hears loudness), then silence */
function callerSpeech(ms: number): Uint8Array {
  const pcm = new Int16Array(8 * ms);
  for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(6000 * Math.sin((2 * Math.PI * 220 * i) / 8000));
  return Buffer.concat([Buffer.from(mulawEncode(pcm)), Buffer.alloc(8000, 0xff)]);
}

const toolMessages = (body: any): Array<{ tool_call_id: string; content: string }> => body.messages.filter((m: any) => m.role === 'tool');

/**
 * The model: until it has the caller's words it asks; then it records the fields and books; given the booking's
 * result it syncs the CRM and sends the brochure; given those it says goodbye and ends the call.
 */
function model(body: any): FakeReply {
  const tools = new Set(toolMessages(body).map((m) => m.tool_call_id));
  if (tools.has('wa1')) {
    return toolCallReply([{ id: 'end1', name: 'end_call', arguments: '{"reason":"completed"}' }],
      { text: ['I have sent you the brochure on WhatsApp. ', 'Thank you, goodbye.'] });
  }
  if (tools.has('cal1')) {
    return toolCallReply([
      { id: 'crm1', name: 'crm_sync', arguments: JSON.stringify({ outcome: 'qualified', notes: 'villa, site visit booked' }) },
      { id: 'wa1', name: 'messaging_brochure', arguments: JSON.stringify({ customer_name: 'Asha Rao', project_name: 'Palm Grove' }) },
    ], { text: ['You are booked for Tuesday at ten. '] });
  }
  const heardCaller = body.messages.some((m: any) => m.role === 'user' && /Asha Rao/.test(String(m.content)));
  if (heardCaller && !body.messages.some((m: any) => m.role === 'assistant' && /book that/.test(String(m.content)))) {
    return toolCallReply([
      { id: 'rec1', name: 'record_fields', arguments: JSON.stringify({ customer_name: 'Asha Rao', intent: 'a villa', budget: '80 lakh rupees', qualification_score: 85 }) },
      { id: 'cal1', name: 'calendar_booking', arguments: JSON.stringify({ start: SLOT, title: 'Site visit' }) },
    ], { text: ['Lovely, Asha. ', 'Let me book that for you.'], pieces: 4 });
  }
  return textReply(['Welcome to Palm Grove. ', 'What are you looking for, ', 'and when could you visit?']);
}
chat.responder = model;

t.test('GET /v1/integrations reports every slot live', async (t) => {
  const r = await api(LOCAL, 'GET', '/integrations', { token: admin });
  t.equal(r.status, 200);
  const bySlot = Object.fromEntries(r.body.data.map((s: { slot: string; mode: string; provider: string }) => [s.slot, `${s.provider}:${s.mode}`]));
  t.match(bySlot, { carrier: 'twilio:live', speech_to_text: 'deepgram:live', dialog_model: 'openai:live', text_to_speech: 'elevenlabs:live',
    crm: /:live$/, calendar: /:live$/, messaging: /:live$/ }, JSON.stringify(bySlot));
  for (const secret of ['sk-all-fakes', 'dg-all-fakes', 'sk_all_fakes', 'pat-all-fakes', 'cal_all_fakes', 'EAA-all-fakes', TOKEN]) {
    t.notOk(JSON.stringify(r.body).includes(secret), 'no key value reported');
  }
});

t.test('a whole live call: Twilio, Deepgram, the model with tools, ElevenLabs and the integrations', async (t) => {
  twilioFake.plan(TO, { answer: 'human', ringMs: 300, audio: callerSpeech(2000), speakWhenQuietMs: 700 });
  const d = await api(LOCAL, 'POST', '/calls/dispatch', { ...auth, body: {
    to: TO, agent_id: 'default', language: 'en-US', webhook_url: hookUrl,
    context: { project_name: 'Palm Grove', time_zone: 'Asia/Kolkata' }, tools: ['calendar_booking', 'crm_sync', 'messaging_brochure'] } });
  t.equal(d.status, 201, JSON.stringify(d.body));
  const id: string = d.body.id;
  const fc = await waitFor('the call at the fake Twilio', () => twilioFake.callTo(TO), 60_000);
  const call = await waitFor(`call ${id} to end`, async () => {
    const c = (await api(LOCAL, 'GET', `/calls/${id}`, auth)).body;
    return ENDED.includes(c.status) ? c : undefined;
  }, 100_000);
  t.equal(call.status, 'completed');
  t.equal(call.ended_reason, 'completed', 'ended by the model\'s end_call');
  t.same(call.transitions.map((x: { to: string }) => x.to), ['queued', 'dialing', 'ringing', 'in_progress', 'completed']);

  // Twilio: the media stream carried our mu-law both ways and the call was hung up over REST
  await fc.ended;
  t.same(fc.protocolErrors, [], 'every message we sent was valid Media Streams');
  t.ok(fc.playedBytes > 8000, `the agent's audio played (${fc.playedBytes} bytes)`);
  t.ok(twilioFake.requests.some((q) => q.path.endsWith(`/Calls/${fc.sid}.json`) && q.form.get('Status') === 'completed'), 'hung up over REST');
  t.ok(fc.callbacks.length >= 4 && fc.callbacks.every((c) => c.httpStatus === 204), 'every signed callback verified and acknowledged');

  // Deepgram: one socket for the call, the caller's mu-law, Finalize at our end of turn, CloseStream at hang-up
  t.equal(deepgram.connections.length, 1);
  const dg = deepgram.connections[0];
  t.match(dg.query, { encoding: 'mulaw', sample_rate: '8000', language: 'en-US', interim_results: 'true' });
  const controls = dg.controls.map((x) => x.type);
  t.ok(controls.filter((x) => x === 'Finalize').length >= call.metrics.turn_count, `a Finalize per turn (${controls.join(',')})`);
  t.equal(dg.audioMs, call.metrics.frames_in * 20, 'every caller frame went to Deepgram');
  t.equal(controls.at(-1), 'CloseStream', 'CloseStream at hang-up');
  await waitFor('the Deepgram socket to close', () => dg.closed, 10_000);
  t.match(dg.closed, { code: 1000 });

  // the model: the caller's words reached it, and every tool result went back to it
  const withCaller = chat.requests.find((r) => r.body.messages.some((m: any) => m.role === 'user' && String(m.content).includes(CALLER_LINE)));
  t.ok(withCaller, 'Deepgram\'s words reached the model');
  t.equal(withCaller?.body.model, 'local-model');
  const toolNames = withCaller?.body.tools.map((x: any) => x.function.name) ?? [];
  t.match(toolNames.sort(), ['calendar_booking', 'crm_sync', 'end_call', 'messaging_brochure', 'press_keys', 'record_fields', 'transfer_to_human'].sort(), 'the dispatch\'s tools and the built-ins');
  const last = chat.requests.find((r) => toolMessages(r.body).some((m) => m.tool_call_id === 'wa1'));
  t.ok(last, 'a follow-up request carried the integrations\' results');
  const results = Object.fromEntries(toolMessages(last?.body ?? { messages: [] }).map((m) => [m.tool_call_id, JSON.parse(m.content)]));
  t.match(results, { rec1: { recorded: { customer_name: 'Asha Rao' } }, cal1: { status: '201_created' }, crm1: { status: '201_created' }, wa1: { status: '200_ok' } },
    JSON.stringify(results));
  t.same(chat.requests.filter((r) => r.aborted), [], 'no model stream was cut');

  // ElevenLabs: each sentence the agent said, as telephone mu-law in the configured voice
  const spoken = eleven.requests.map((r) => String(r.body.text).trim());
  for (const s of ['Lovely, Asha.', 'Let me book that for you.', 'You are booked for Tuesday at ten.', 'I have sent you the brochure on WhatsApp.', 'Thank you, goodbye.']) {
    t.ok(spoken.includes(s), `ElevenLabs rendered "${s}"`);
  }
  t.ok(eleven.requests.every((r) => r.outputFormat === 'ulaw_8000' && r.voiceId === 'JBFqnCBsd6RMkjVDRZzb' && r.finished), 'mu-law 8 kHz for the phone, all finished');

  // the integrations' fakes saw the documented requests
  t.equal(calcom.bookings.length, 1);
  t.match(calcom.bookings[0], { start: '2026-12-01T04:30:00.000Z', eventTypeId: 88, attendees: [{ name: 'Asha Rao', phoneNumber: TO }], metadata: { call_id: id } });
  t.same([...hubspot.contacts.values()].map((c) => [c.phone, c.firstname, c.lastname]), [[TO, 'Asha', 'Rao']], 'HubSpot created the caller\'s contact');
  t.ok(hubspot.requests.every((q) => q.headers.authorization === 'Bearer pat-all-fakes'));
  t.equal(whatsapp.sent.length, 1);
  t.match(whatsapp.sent[0], { to: '14155550123', type: 'template', template: { name: 'project_brochure', components: [{ type: 'body', parameters: [{ text: 'Asha Rao' }] }] } });

  // the record: what the model recorded, the fakes' statuses, the latency split of each turn
  t.match(call.extracted_data, { customer_name: 'Asha Rao', intent: 'a villa', budget: '8000000 INR', scheduled_slot: SLOT, qualification_score: 85 });
  t.equal(call.actions_triggered.length, 3, 'each integration once');
  const byType = Object.fromEntries(call.actions_triggered.map((a: { type: string; status: string }) => [a.type, a.status]));
  t.match(byType, { 'calendar.event.create': '201_created', 'crm.lead.update': '201_created', 'messaging.template.send': '200_ok' }, JSON.stringify(call.actions_triggered));
  t.ok(call.metrics.turns.length >= 1, `turns recorded (${call.metrics.turns.length})`);
  for (const turn of call.metrics.turns) {
    t.match(turn, { stt_ms: Number, dialog_ms: Number, tts_ms: Number, total_ms: Number });
    t.ok(turn.total_ms >= turn.stt_ms && turn.total_ms >= turn.dialog_ms && turn.total_ms >= turn.tts_ms, `total covers the stages ${JSON.stringify(turn)}`);
  }

  // the signed webhook carries the same
  const hook = await waitFor('the call.completed webhook', () => hooks.find((h) => h.body.includes(id)), 30_000);
  const secret = (await api(LOCAL, 'GET', '/webhooks/secret', { token: admin })).body.secret;
  const payload = new Webhook(secret).verify(hook.body, hook.headers) as Record<string, any>;
  t.match(payload, { event: 'call.completed', call_id: id, status: 'completed' }, 'signed with the tenant\'s secret');
  t.same(payload.extracted_data, call.extracted_data);
  t.same(payload.actions_triggered, call.actions_triggered);
});

t.test('the demo loop through the same providers', async (t) => {
  const c = await api(LOCAL, 'POST', '/conversations', { body: { domain: 'Palm Grove' } });
  t.equal(c.status, 201, JSON.stringify(c.body));
  const before = { chat: chat.requests.length, eleven: eleven.requests.length };
  const r = await api(LOCAL, 'POST', `/conversations/${c.body.id}/turns`, { body: { text: 'Hello, tell me about the project.', reply_audio: true } });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.equal(r.body.agent.text, 'Welcome to Palm Grove. What are you looking for, and when could you visit?', 'the model answered');
  t.ok(chat.requests.length > before.chat);
  t.equal(r.body.reply_audio?.content_type, 'audio/wav');
  t.ok(Buffer.from(r.body.reply_audio?.base64 ?? '', 'base64').length > 1000, 'reply audio present');
  t.ok(eleven.requests.length > before.eleven, 'rendered by ElevenLabs');

  const pcm = new Int16Array(16000 * 2);
  for (let i = 8000; i < 24000; i++) pcm[i] = Math.round(4000 * Math.sin((2 * Math.PI * 220 * i) / 16000));
  const form = new FormData();
  form.append('audio', new Blob([writeWav({ sampleRateHz: 16000, channels: [pcm] }) as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'turn.wav');
  const res = await fetch(`${LOCAL}/conversations/${c.body.id}/audio`, { method: 'POST', body: form });
  const body = await res.json() as any;
  t.equal(res.status, 200, JSON.stringify(body));
  t.match(body.caller, { text: DEMO_LINE, transcript_source: 'stt_adapter' }, 'transcribed by Deepgram');
  t.equal(deepgram.connections.length, 2, 'a socket of its own');
  t.match(deepgram.connections[1], { query: { encoding: 'linear16', sample_rate: '16000' } });
  t.ok(body.agent?.text, 'and answered');
});
