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

t.test('live mode refuses to start without the keys it needs', async (t) => {
  t.throws(() => loadConfig({ SERVICE_MODE: 'live' }), /SERVICE_JWT_SECRET.*TWILIO_AUTH_TOKEN/);
  const ok = loadConfig({ SERVICE_MODE: 'live', SERVICE_JWT_SECRET: 'x'.repeat(32), SERVICE_DEV_PASSWORD: 'a-real-password', SERVICE_API_KEY: 'k'.repeat(20), TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 'tok' });
  t.equal(ok.SERVICE_MODE, 'live');
});
