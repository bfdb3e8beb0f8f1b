import t from 'tap';
import { loadConfig, ConfigError } from '../../src/config.js';
import { createAdapters, SimCarrier, type PlaceCallRequest } from '../../src/adapters/index.js';
import { buildServices } from '../../src/services.js';
import { freshSchemaUrl } from '../helpers/server.js';

t.test('config: adapter URLs are host:port, timeout has a default', async (t) => {
  const c = loadConfig({});
  t.equal(c.ADAPTER_TIMEOUT_MS, 3000);
  t.equal(c.ADAPTER_DIALOG_URL, undefined);
  t.equal(loadConfig({ ADAPTER_TTS_URL: 'adapters.internal:50051', ADAPTER_TIMEOUT_MS: '250' }).ADAPTER_TTS_URL, 'adapters.internal:50051');
  t.throws(() => loadConfig({ ADAPTER_STT_URL: 'http://x:1/path' }), ConfigError);
  t.throws(() => loadConfig({ ADAPTER_TIMEOUT_MS: '0' }), /ADAPTER_TIMEOUT_MS/);
});

t.test('per-adapter choice: in-process by default, gRPC where a URL is set', async (t) => {
  const local = createAdapters(loadConfig({}));
  t.same(local.modes, { carrier: 'in_process', stt: 'in_process', dialog: 'in_process', tts: 'in_process' });
  t.ok(local.simCarrier instanceof SimCarrier);
  const mixed = createAdapters(loadConfig({ ADAPTER_DIALOG_URL: '127.0.0.1:50999' }));
  t.same(mixed.modes, { carrier: 'in_process', stt: 'in_process', dialog: 'grpc', tts: 'in_process' });
  await mixed.close();
  await mixed.close();
  t.pass('close is idempotent');
});

t.test('the in-process simulated carrier tells the host about answered calls', async (t) => {
  const set = createAdapters(loadConfig({}), { simCarrier: { ringMs: 0 } });
  const answered: string[] = [];
  set.simCarrier!.onAnswered((req: PlaceCallRequest, r) => answered.push(`${req.to}:${r.outcome}:${r.detail}`));
  const base = { callId: 'call_x', tenantId: 'ten_dev', mediaUrl: 'wss://h.test/v1/media/twilio', parameters: {} };
  await set.carrier.placeCall({ ...base, to: '+15005550002' });
  await set.carrier.placeCall({ ...base, to: '+15005550004' });
  await set.carrier.placeCall({ ...base, to: '+15005550006' });
  t.same(answered, ['+15005550004:voicemail:voicemail', '+15005550006:answered:barge_in']);
});

t.test('buildServices exposes adapters and tools and closes them', async (t) => {
  // storage follows the environment: a fresh PostgreSQL schema when DATABASE_URL is set, else PGlite in memory
  const databaseUrl = process.env.DATABASE_URL ? await freshSchemaUrl(process.env.DATABASE_URL) : undefined;
  const services = await buildServices(loadConfig({ DATA_DIR: 'memory', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, REDIS_URL: process.env.REDIS_URL }));
  t.teardown(() => services.close());
  t.same(services.adapters.modes.dialog, 'in_process');
  t.same(await services.tools.run({ tenantId: 'ten_dev', callId: 'c', tool: 'crm_sync', arguments: {} }), { type: 'crm.lead.update', status: '200_ok' });
});

t.test('live mode is never silent about the scripted dialog engine (the one simulator slot it allows)', async (t) => {
  const warnings: string[] = [];
  const live = { SERVICE_MODE: 'live' as const, ADAPTER_TIMEOUT_MS: 3000 };
  await createAdapters({ ...live, ADAPTER_TTS_URL: '127.0.0.1:50051' }, { warn: (m) => warnings.push(m) }).close();
  t.same(warnings, ['SERVICE_MODE=live with the scripted dialog engine: set DIALOG_PROVIDER=openai for a language model']);
  await createAdapters({ ...live, SERVICE_MODE: 'simulator' }, { warn: (m) => warnings.push(m) }).close();
  t.equal(warnings.length, 1, 'silent in simulator mode');
});

t.test('a failing remote dialog model falls back to the scripted engine (spoken reply, not silence)', async (t) => {
  const { collect, turnRequest } = await import('./helpers/contract.js');
  const warnings: string[] = [];
  const dead = createAdapters({ ADAPTER_DIALOG_URL: '127.0.0.1:1', ADAPTER_TIMEOUT_MS: 2000 }, { warn: (m) => warnings.push(m) });
  const events = await collect(dead.dialog.turn(turnRequest()));
  t.equal(events[0].type, 'text', 'the scripted engine answered');
  t.same(warnings, ['dialog adapter unavailable (before_reply): scripted fallback used']);
  await dead.close();
  const strict = createAdapters({ ADAPTER_DIALOG_URL: '127.0.0.1:1', ADAPTER_TIMEOUT_MS: 2000 }, { dialogFallback: false });
  await t.rejects(collect(strict.dialog.turn(turnRequest())), { code: 'unavailable' });
  await strict.close();
});
