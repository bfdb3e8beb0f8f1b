/**
 * GET /v1/integrations?verify=true, provider by provider: one authenticated read against each local fake (built
 * from the vendor's documented read: account, projects, models, user, voice, …): the right keys are `verified`,
 * wrong ones `rejected` with the provider's status, a closed port `unreachable`; no key value in any answer.
 */
import t from 'tap';
import { createServer } from 'node:net';
import { loadConfig } from '../../src/config.js';
import { verifyProvider } from '../../src/providers/verify.js';
import { FakeTwilio } from '../fakes/twilio.js';
import { FakePlivo } from '../fakes/plivo.js';
import { FakeExotel } from '../fakes/exotel.js';
import { startFakeDeepgram } from '../fakes/deepgram.js';
import { startFakeChat } from '../fakes/openai_chat.js';
import { startElevenLabsFake } from '../fakes/elevenlabs.js';
import { startCartesiaFake } from '../fakes/cartesia.js';
import { startHubSpotFake } from '../fakes/hubspot.js';
import { startCalComFake } from '../fakes/calcom.js';
import { startWhatsAppFake } from '../fakes/whatsapp.js';
import { startTestServer, api, login, API_KEY } from '../helpers/server.js';

const twilio = await new FakeTwilio('AC0123456789abcdef0123456789abcdef', 'twilio-token-good').start();
const plivo = await new FakePlivo({ authId: 'MAFAKEAUTHID0000', authToken: 'plivo-token-good', audio: new Uint8Array(0) }).start();
const exotel = await new FakeExotel({ sid: 'acme1', apiKey: 'exo-key', apiToken: 'exo-token-good', appId: '123', appletUrl: () => '', audio: new Uint8Array(0) }).start();
const deepgram = await startFakeDeepgram({ apiKey: 'dg-key-good' });
const openai = await startFakeChat({ apiKey: 'sk-good-key-123456' });
const eleven = await startElevenLabsFake({ apiKey: 'xi-key-good' });
const cartesia = await startCartesiaFake({ apiKey: 'cartesia-key-good', voices: ['voice-known'] });
const hubspot = await startHubSpotFake({ token: 'hub-token-good' });
const calcom = await startCalComFake({ apiKey: 'cal_good', eventTypeId: 7 });
const whatsapp = await startWhatsAppFake({ token: 'wa-token-good', phoneNumberId: '1098765', templates: {} });
t.teardown(async () => {
  await Promise.all([twilio.close(), plivo.close(), exotel.close(), deepgram.close(), openai.close(), eleven.close(), cartesia.close(), hubspot.close(), calcom.close(), whatsapp.close()]);
});

const urls = {
  TWILIO_API_BASE_URL: twilio.baseUrl, PLIVO_API_BASE_URL: plivo.baseUrl, EXOTEL_API_BASE_URL: exotel.baseUrl, DEEPGRAM_API_URL: deepgram.url,
  OPENAI_BASE_URL: openai.baseUrl, ELEVENLABS_API_URL: eleven.url, CARTESIA_API_URL: cartesia.url, HUBSPOT_API_URL: hubspot.url,
  CALCOM_API_URL: calcom.url, WHATSAPP_API_URL: `${whatsapp.url}/v21.0`,
};
const good: Record<string, Record<string, string>> = {
  twilio: { TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef', TWILIO_AUTH_TOKEN: 'twilio-token-good' },
  plivo: { PLIVO_AUTH_ID: 'MAFAKEAUTHID0000', PLIVO_AUTH_TOKEN: 'plivo-token-good' },
  exotel: { EXOTEL_ACCOUNT_SID: 'acme1', EXOTEL_API_KEY: 'exo-key', EXOTEL_API_TOKEN: 'exo-token-good' },
  deepgram: { DEEPGRAM_API_KEY: 'dg-key-good' },
  openai: { OPENAI_API_KEY: 'sk-good-key-123456' },
  elevenlabs: { ELEVENLABS_API_KEY: 'xi-key-good' },
  cartesia: { CARTESIA_API_KEY: 'cartesia-key-good', CARTESIA_VOICE_ID: 'voice-known' },
  hubspot: { HUBSPOT_API_KEY: 'hub-token-good' },
  calcom: { CALCOM_API_KEY: 'cal_good' },
  whatsapp: { WHATSAPP_API_TOKEN: 'wa-token-good', WHATSAPP_PHONE_NUMBER_ID: '1098765' },
};
/** one wrong setting per provider, and the status its fake answers (as the vendor documents it) */
const bad: Record<string, [Record<string, string>, number]> = {
  twilio: [{ TWILIO_AUTH_TOKEN: 'twilio-token-made-up' }, 401],
  plivo: [{ PLIVO_AUTH_TOKEN: 'plivo-token-made-up' }, 401],
  exotel: [{ EXOTEL_API_TOKEN: 'exo-token-made-up' }, 401],
  deepgram: [{ DEEPGRAM_API_KEY: 'dg-key-made-up' }, 401],
  openai: [{ OPENAI_API_KEY: 'sk-made-up-key-654321' }, 401],
  elevenlabs: [{ ELEVENLABS_API_KEY: 'xi-key-made-up' }, 401],
  cartesia: [{ CARTESIA_VOICE_ID: 'voice-made-up' }, 404],
  hubspot: [{ HUBSPOT_API_KEY: 'hub-token-made-up' }, 401],
  calcom: [{ CALCOM_API_KEY: 'cal_made_up' }, 401],
  whatsapp: [{ WHATSAPP_API_TOKEN: 'wa-token-made-up' }, 401],
};
const secretsOf = (env: Record<string, string>) => Object.entries(env).filter(([k]) => !/SID|AUTH_ID|PHONE_NUMBER_ID|VOICE_ID/.test(k)).map(([, v]) => v);

for (const provider of Object.keys(good)) {
  t.test(`${provider}: right keys verified, a wrong one rejected with the provider's status`, async (t) => {
    const ok = await verifyProvider(provider, loadConfig({ ...urls, ...good[provider] }));
    t.match(ok, { result: 'verified', checked: /^GET http:\/\/127\.0\.0\.1:\d+\// }, JSON.stringify(ok));
    const [wrong, status] = bad[provider];
    const env = { ...good[provider], ...wrong };
    const no = await verifyProvider(provider, loadConfig({ ...urls, ...env }));
    t.match(no, { result: 'rejected', http_status: status }, JSON.stringify(no));
    const text = JSON.stringify([ok, no]);
    for (const s of secretsOf(env)) t.notOk(text.includes(s), `${s} never in the result`);
  });
}

t.test('nothing listening: unreachable, with the settings named rather than filled in', async (t) => {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  const v = await verifyProvider('twilio', loadConfig({ ...good.twilio, TWILIO_API_BASE_URL: `http://127.0.0.1:${port}` }));
  t.match(v, { result: 'unreachable', checked: `GET http://127.0.0.1:${port}/2010-04-01/Accounts/{TWILIO_ACCOUNT_SID}.json` });
  t.notOk(JSON.stringify(v).includes('twilio-token-good'));
});

t.test('the route: ?verify=true checks each live slot; without it nothing is sent', async (t) => {
  const srv = await startTestServer({ env: {
    ...urls, CARRIER: 'twilio', ...good.twilio, TWILIO_FROM_NUMBER: '+14155550100',
    STT_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: 'dg-key-made-up',
    DIALOG_PROVIDER: 'openai', ...good.openai,
    TTS_PROVIDER: 'elevenlabs', ...good.elevenlabs, ELEVENLABS_VOICE_ID: 'v1',
  } });
  t.teardown(() => srv.close());
  const token = await login(srv.baseUrl);
  const before = twilio.requests.length;
  const plain = await api(srv.baseUrl, 'GET', '/integrations', { token });
  t.equal(plain.status, 200);
  t.equal(twilio.requests.length, before, 'no outbound read without verify=true');
  t.notOk(plain.body.data.some((s: { verification?: unknown }) => s.verification), 'no verification field without verify=true');
  const r = await api(srv.baseUrl, 'GET', '/integrations?verify=true', { token });
  t.equal(r.status, 200);
  const by = Object.fromEntries(r.body.data.map((s: { slot: string; verification?: unknown }) => [s.slot, s.verification]));
  t.match(by.carrier, { result: 'verified' });
  t.match(by.speech_to_text, { result: 'rejected', http_status: 401 });
  t.match(by.dialog_model, { result: 'verified' });
  t.match(by.text_to_speech, { result: 'verified' });
  t.equal(by.crm, undefined, 'a simulated slot is not checked');
  const text = JSON.stringify(r.body);
  for (const s of ['twilio-token-good', 'dg-key-made-up', 'sk-good-key-123456', 'xi-key-good']) t.notOk(text.includes(s), `${s} never in the answer`);
  const refused = await api(srv.baseUrl, 'GET', '/integrations?verify=maybe', { token });
  t.equal(refused.status, 400, 'verify takes true or false');
  const operator = await api(srv.baseUrl, 'GET', '/integrations?verify=true', { headers: { 'x-api-key': API_KEY } });
  t.equal(operator.status, 401, 'API keys are not taken: an admin JWT only');
});
