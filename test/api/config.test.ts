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
    /SERVICE_JWT_SECRET, SERVICE_DEV_PASSWORD, SERVICE_API_KEY, PUBLIC_BASE_URL, CARRIER \(the carrier provider\), STT_PROVIDER .*TTS_PROVIDER/);
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
