import t from 'tap';
import { loadConfig, ConfigError } from '../../src/config.js';

t.test('defaults are the embedded simulator on 127.0.0.1:8787/v1', async (t) => {
  const c = loadConfig({});
  t.equal(c.SERVICE_MODE, 'simulator');
  t.equal(c.publicBaseUrl, 'http://127.0.0.1:8787/v1');
  t.equal(c.DATABASE_URL, undefined);
  t.equal(c.REDIS_URL, undefined);
});

t.test('a bad value names its key', async (t) => {
  for (const [key, value] of [['PORT', '99999'], ['SERVICE_MODE', 'prod'], ['DATABASE_URL', 'mysql://x'], ['SERVICE_DEV_EMAIL', 'nope'], ['JSON_BODY_LIMIT_BYTES', 'ten']]) {
    let err: unknown;
    try { loadConfig({ [key]: value }); } catch (e) { err = e; }
    t.ok(err instanceof ConfigError && err.message.includes(key), `${key}: ${(err as Error)?.message}`);
  }
});

t.test('live mode refuses to start without the keys it needs, and names them', async (t) => {
  t.throws(() => loadConfig({ SERVICE_MODE: 'live' }),
    /SERVICE_JWT_SECRET, SERVICE_DEV_PASSWORD, SERVICE_API_KEY, PUBLIC_BASE_URL, CARRIER \(the carrier provider: twilio with TWILIO_ACCOUNT_SID, .*\), STT_PROVIDER .*TTS_PROVIDER/);
  const base = { SERVICE_MODE: 'live', SERVICE_JWT_SECRET: 'x'.repeat(32), SERVICE_DEV_PASSWORD: 'a-real-password', SERVICE_API_KEY: 'k'.repeat(20),
    PUBLIC_BASE_URL: 'https://voice.example.com/v1', STT_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: 'dg', TTS_PROVIDER: 'elevenlabs',
    ELEVENLABS_API_KEY: 'el', ELEVENLABS_VOICE_ID: 'voice', SERVICE_WEBHOOK_SECRET: 'inbound-secret-0123456789' };
  t.throws(() => loadConfig({ ...base, CARRIER: 'twilio', TWILIO_ACCOUNT_SID: 'AC1' }), /CARRIER=twilio requires TWILIO_AUTH_TOKEN, TWILIO_FROM_NUMBER/);
  const ok = loadConfig({ ...base, CARRIER: 'twilio', TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 'tok', TWILIO_FROM_NUMBER: '+14155550100' });
  t.equal(ok.SERVICE_MODE, 'live');
  t.equal(loadConfig({ ...base, ADAPTER_CARRIER_URL: '127.0.0.1:50051' }).SERVICE_MODE, 'live', 'an adapter server may provide a slot');
  t.throws(() => loadConfig({ TTS_PROVIDER: 'cartesia', CARTESIA_API_KEY: 'c' }), /TTS_PROVIDER=cartesia requires CARTESIA_VOICE_ID/,
    'a provider named without its keys is refused in simulator mode too');
});

t.test('connection deadlines: the head must come before the request deadline', async (t) => {
  const c = loadConfig({});
  t.same([c.HTTP_HEADERS_TIMEOUT_MS, c.HTTP_REQUEST_TIMEOUT_MS, c.HTTP_KEEP_ALIVE_TIMEOUT_MS], [5000, 120000, 5000]);
  t.throws(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '10000', HTTP_REQUEST_TIMEOUT_MS: '5000' }), /HTTP_HEADERS_TIMEOUT_MS \(10000\) must not exceed HTTP_REQUEST_TIMEOUT_MS/);
});

t.test('every missing or invalid setting is named in one message, not one per restart', async (t) => {
  let message = '';
  try {
    loadConfig({ SERVICE_MODE: 'live', PORT: 'eighty', TTS_PROVIDER: 'cartesia', CARTESIA_API_KEY: 'c', TWILIO_FROM_NUMBER: '4155550100' });
  } catch (err) { message = (err as Error).message; }
  // bad values, a provider without its keys, and everything live mode needs: all of them, each on a line
  for (const name of ['PORT', 'TWILIO_FROM_NUMBER', 'TTS_PROVIDER=cartesia requires CARTESIA_VOICE_ID', 'SERVICE_JWT_SECRET', 'SERVICE_DEV_PASSWORD',
    'SERVICE_API_KEY', 'PUBLIC_BASE_URL', 'CARRIER (the carrier provider', 'STT_PROVIDER (the speech_to_text provider', 'SERVICE_WEBHOOK_SECRET']) {
    t.ok(message.includes(name), `names ${name}`);
  }
  t.match(message, /^invalid configuration \(\d+ problems\):\n  - /);
  t.notMatch(message, /TTS_PROVIDER \(the text_to_speech provider/, 'a provider named (if half-configured) is not also reported as unset');
});

const LIVE_BASE = { SERVICE_MODE: 'live', SERVICE_JWT_SECRET: 'x'.repeat(32), SERVICE_DEV_PASSWORD: 'a-real-password', SERVICE_API_KEY: 'k'.repeat(20),
  PUBLIC_BASE_URL: 'https://voice.example.com/v1', SERVICE_WEBHOOK_SECRET: 'inbound-secret-0123456789',
  TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 'tok', TWILIO_FROM_NUMBER: '+14155550100', ELEVENLABS_API_KEY: 'el', ELEVENLABS_VOICE_ID: 'voice' };

t.test('live mode: a slot with no provider named uses the one provider whose keys are all set', async (t) => {
  const c = loadConfig({ ...LIVE_BASE, DEEPGRAM_API_KEY: 'dg' });
  const { selectSlot } = await import('../../src/providers/catalog.js');
  for (const [slot, provider] of [['carrier', 'twilio'], ['speech_to_text', 'deepgram'], ['text_to_speech', 'elevenlabs']] as const) {
    t.match(selectSlot(c as never, slot), { provider, live: true, derived: true }, slot);
  }
  t.match(selectSlot(c as never, 'dialog_model'), { live: false }, 'no OpenAI key: the dialog stays scripted');
  const withOpenAi = loadConfig({ ...LIVE_BASE, STT_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: 'dg', OPENAI_API_KEY: 'sk-x' });
  t.match(selectSlot(withOpenAi as never, 'dialog_model'), { provider: 'openai', live: true, derived: true }, 'OPENAI_API_KEY alone selects the OpenAI dialog');
  t.match(selectSlot(withOpenAi as never, 'speech_to_text'), { provider: 'deepgram', derived: undefined }, 'a named provider is not derived');
});

t.test('live mode: several providers keyed for one slot ask for the choice by name, in the same one message', async (t) => {
  let message = '';
  try { loadConfig({ ...LIVE_BASE, DEEPGRAM_API_KEY: 'dg', OPENAI_API_KEY: 'sk-x', PLIVO_AUTH_ID: 'MA1', PLIVO_AUTH_TOKEN: 't', PLIVO_FROM_NUMBER: '+14155550101' }); } catch (err) { message = (err as Error).message; }
  t.match(message, /STT_PROVIDER: the keys of deepgram and openai are all set; name the speech_to_text provider \(STT_PROVIDER=deepgram or openai\)/);
  t.match(message, /CARRIER: the keys of twilio and plivo are all set; name the carrier provider \(CARRIER=twilio or plivo\)/);
  t.notMatch(message, /CARRIER \(the carrier provider/, 'not also reported as missing');
});

t.test('the simulator never derives: keys in the environment turn nothing real on', async (t) => {
  const { selectSlot } = await import('../../src/providers/catalog.js');
  const c = loadConfig({ OPENAI_API_KEY: 'sk-x', TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 'tok', TWILIO_FROM_NUMBER: '+14155550100' });
  t.match(selectSlot(c as never, 'dialog_model'), { provider: undefined, live: false });
  t.match(selectSlot(c as never, 'carrier'), { provider: undefined, live: false });
});
