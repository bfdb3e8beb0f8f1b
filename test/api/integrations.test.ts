import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';

const secretValue = 'dg-secret-value-123456';
const srv = await startTestServer({ env: { DEEPGRAM_API_KEY: secretValue, TWILIO_ACCOUNT_SID: 'AC-secret-sid' } });
t.teardown(() => srv.close());

t.test('keys alone select nothing: a slot says which provider is ready and what its setting is; values never appear', async (t) => {
  const r = await api(srv.baseUrl, 'GET', '/integrations', { token: await login(srv.baseUrl) });
  t.equal(r.status, 200);
  const bySlot = Object.fromEntries(r.body.data.map((s: { slot: string; mode: string }) => [s.slot, s.mode]));
  t.same(bySlot, { carrier: 'simulated', speech_to_text: 'simulated', dialog_model: 'simulated', text_to_speech: 'simulated', crm: 'simulated', calendar: 'simulated', messaging: 'simulated' });
  const stt = r.body.data.find((s: { slot: string }) => s.slot === 'speech_to_text');
  t.match(stt, { setting: 'STT_PROVIDER', provider: null, ready: ['deepgram'], note: /STT_PROVIDER is not set: the offline grammar recogniser/ });
  t.match(r.body.data.find((s: { slot: string }) => s.slot === 'text_to_speech'), { note: /TTS_PROVIDER is not set: the offline voice/ });
  const text = JSON.stringify(r.body);
  t.notOk(text.includes(secretValue) || text.includes('AC-secret-sid'), 'no key values in the response');
  t.match(r.body.data[0].keys, [{ name: 'TWILIO_ACCOUNT_SID', present: true }, { name: 'TWILIO_AUTH_TOKEN', present: false }]);
});
