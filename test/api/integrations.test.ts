import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';
import { loadConfig } from '../../src/config.js';
import { slotStatus } from '../../src/integrations.js';

const secretValue = 'dg-secret-value-123456';
const srv = await startTestServer({ env: { DEEPGRAM_API_KEY: secretValue, TWILIO_ACCOUNT_SID: 'AC-secret-sid' } });
t.teardown(() => srv.close());

t.test('keys alone select nothing: a slot says which provider is ready and what its setting is; values never appear', async (t) => {
  const r = await api(srv.baseUrl, 'GET', '/integrations', { token: await login(srv.baseUrl) });
  t.equal(r.status, 200);
  const bySlot = Object.fromEntries(r.body.data.map((s: { slot: string; mode: string }) => [s.slot, s.mode]));
  t.same(bySlot, { carrier: 'simulated', speech_to_text: 'simulated', dialog_model: 'simulated', text_to_speech: 'simulated', crm: 'simulated', calendar: 'simulated', messaging: 'simulated' });
  const stt = r.body.data.find((s: { slot: string }) => s.slot === 'speech_to_text');
  t.match(stt, { setting: 'STT_PROVIDER', provider: null, ready: ['deepgram'], note: /STT_PROVIDER is not set: .*the offline grammar recogniser answers/ });
  // the test server runs calls in tone code (SIM_SPEECH=tones): the notes say so
  t.match(r.body.data.find((s: { slot: string }) => s.slot === 'text_to_speech'), { note: /TTS_PROVIDER is not set: the offline voice speaks the demo's replies .*calls speak the simulator's tone code/ });
  t.match(stt, { note: /calls hear the simulator's tone code/ });
  const text = JSON.stringify(r.body);
  t.notOk(text.includes(secretValue) || text.includes('AC-secret-sid'), 'no key values in the response');
  t.match(r.body.data[0].keys, [{ name: 'TWILIO_ACCOUNT_SID', present: true }, { name: 'TWILIO_AUTH_TOKEN', present: false }]);
});

t.test('live mode: a provider chosen from the keys is said so (chosen_by keys, with a note)', async (t) => {
  const live = await startTestServer({ env: {
    SERVICE_MODE: 'live', PUBLIC_BASE_URL: 'https://voice.example.com/v1', ADAPTER_CARRIER_URL: '127.0.0.1:1',
    DEEPGRAM_API_KEY: 'dg-made-up', OPENAI_API_KEY: 'sk-made-up', STT_PROVIDER: 'deepgram', ELEVENLABS_API_KEY: 'el', ELEVENLABS_VOICE_ID: 'v',
  } });
  t.teardown(() => live.close());
  const local = `http://127.0.0.1:${live.port}/v1`; // baseUrl is PUBLIC_BASE_URL, the carriers' address
  const r = await api(local, 'GET', '/integrations', { token: await login(local) });
  const by = Object.fromEntries(r.body.data.map((s: { slot: string }) => [s.slot, s]));
  t.match(by.dialog_model, { provider: 'openai', mode: 'live', chosen_by: 'keys', note: /DIALOG_PROVIDER is not set and only openai's keys are/ });
  t.match(by.text_to_speech, { provider: 'elevenlabs', chosen_by: 'keys' });
  t.match(by.speech_to_text, { provider: 'deepgram', chosen_by: 'setting' });
});

t.test('the embedded default (SIM_SPEECH unset): calls speak and hear real speech, and the notes say so', async (t) => {
  const config = loadConfig({});
  t.equal(config.SIM_SPEECH, 'offline');
  t.match(slotStatus(config, 'text_to_speech'), { mode: 'simulated', note: /^TTS_PROVIDER is not set: the offline voice speaks \(Flite\): calls, recordings/ });
  t.notMatch(slotStatus(config, 'text_to_speech').note, /tone code/);
  t.match(slotStatus(config, 'speech_to_text'), { note: /^STT_PROVIDER is not set: the offline grammar recogniser answers/ });
  t.notMatch(slotStatus(config, 'speech_to_text').note, /tone code/);
});
