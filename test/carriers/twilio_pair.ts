/**
 * Two live-mode instances on one PostgreSQL and Redis with the Twilio fake as their carrier, as a balancer test
 * needs them: each names its own media address under the public host (INSTANCE_PUBLIC_URL = HOST/i/<name>/v1).
 */
import type { Test } from 'tap';
import { SimStt, SimTts, startAdapterServer } from '../../src/adapters/index.js';
import { startTestServer } from '../helpers/server.js';
import { FakeTwilio } from '../fakes/twilio.js';

export const HOST = 'https://voice.example.test';

export async function twilioPair(t: Test, o: { sid: string; token: string; names: [string, string]; env?: Record<string, string> }) {
  const fake = await new FakeTwilio(o.sid, o.token).start();
  t.teardown(() => fake.close());
  const speech = await startAdapterServer({ stt: new SimStt(), tts: new SimTts() });
  t.teardown(() => speech.close());
  const env = (name: string) => ({
    SERVICE_MODE: 'live', CARRIER: 'twilio', TWILIO_ACCOUNT_SID: o.sid, TWILIO_AUTH_TOKEN: o.token, TWILIO_FROM_NUMBER: '+14155550100',
    TWILIO_API_BASE_URL: fake.baseUrl, PUBLIC_BASE_URL: `${HOST}/v1`, INSTANCE_PUBLIC_URL: `${HOST}/i/${name}/v1`, RING_TIMEOUT_SECONDS: '10',
    ADAPTER_STT_URL: speech.address, ADAPTER_TTS_URL: speech.address, CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0', ...o.env,
  });
  const a = await startTestServer({ env: env(o.names[0]) });
  t.teardown(() => a.close());
  const b = await startTestServer({ env: env(o.names[1]), databaseUrl: a.databaseUrl });
  t.teardown(() => b.close());
  return { fake, a, b };
}
