import t from 'tap';
import { AudioPool, AudioPoolError, mulawEncode, type AudioEvent, type BargeInVerdict } from '../../src/audio/index.js';

const settings = { sampleRateHz: 8000, turnDetectionTimeoutMs: 800, interruptionSensitivity: 0.5 } as const;
const tone = new Int16Array(160).map((_, i) => Math.round(8000 * Math.sin((i * 2 * Math.PI * 300) / 8000)));
const TONE = mulawEncode(tone);
const SILENCE = mulawEncode(new Int16Array(160));
/** 1 s speech from 200 ms, then silence: one turn. */
const script = (f: number) => (f >= 10 && f < 60 ? TONE : SILENCE);

t.test('frames pushed in the same tick by many calls share tasks; every call gets its own events', async (t) => {
  const pool = new AudioPool({ threads: 2 });
  t.teardown(() => pool.close());
  const calls = Array.from({ length: 50 }, (_, i) => pool.openCall(`call-${i}`, settings));
  const events: AudioEvent[][] = calls.map(() => []);
  for (let f = 0; f < 120; f++) {
    const round = calls.map((c) => c.pushMulaw(script(f), false));
    (await Promise.all(round)).forEach((ev, i) => events[i].push(...ev));
  }
  t.ok(pool.stats.maxCallsInTask > 1, `batched up to ${pool.stats.maxCallsInTask} calls in one task`);
  t.ok(pool.stats.tasks < 120 * 50 / 4, `${pool.stats.tasks} tasks for 6000 frames`);
  for (const ev of events) {
    t.same(ev.map((e) => e.type), ['SpeechStarted', 'SpeechStopped', 'TurnEnded']);
  }
  const turn = events[0].find((e) => e.type === 'TurnEnded');
  t.equal(turn?.atMs, events[49].find((e) => e.type === 'TurnEnded')?.atMs, 'decisions depend on media time only');
});

t.test('a call whose step throws gets an error; others continue and it stays usable', async (t) => {
  const pool = new AudioPool({ threads: 2 });
  t.teardown(() => pool.close());
  const good = pool.openCall('good', settings);
  const bad = pool.openCall('bad', { ...settings, sampleRateHz: 16000 });
  const [g, b] = await Promise.allSettled([good.pushMulaw(SILENCE, false), bad.pushPcm(new Int16Array(7), false)]);
  t.equal(g.status, 'fulfilled');
  t.equal(b.status, 'rejected');
  t.equal((b as PromiseRejectedResult).reason.code, 'call_failed');
  t.same(await bad.pushPcm(new Int16Array(320), false), [], 'the failed call keeps working');
});

t.test('a worker that dies mid-task fails only the call that killed it', async (t) => {
  const pool = new AudioPool({ threads: 2, filename: new URL('./fixtures/exiting_worker.ts', import.meta.url).href });
  t.teardown(() => pool.close());
  const healthy = Array.from({ length: 5 }, (_, i) => pool.openCall(`ok-${i}`, settings));
  const killer = pool.openCall('killer', settings);
  const results = await Promise.allSettled([...healthy.map((c) => c.pushMulaw(SILENCE, false)), killer.resolveBargeIn('__exit_worker__' as BargeInVerdict)]);
  t.same(results.slice(0, 5).map((r) => r.status), Array(5).fill('fulfilled'));
  t.equal(results[5].status, 'rejected');
  const reason = (results[5] as PromiseRejectedResult).reason;
  t.ok(reason instanceof AudioPoolError && reason.code === 'task_failed');
  t.ok(pool.stats.failedTasks >= 1);
  t.same(await healthy[0].pushMulaw(SILENCE, false), [], 'the pool keeps serving after the crash');
});

t.test('close cancels queued work, resolves pending pushes with [] and is idempotent', async (t) => {
  const pool = new AudioPool({ threads: 1 });
  t.teardown(() => pool.close());
  const a = pool.openCall('a', settings);
  const pending = Array.from({ length: 100 }, (_, f) => a.pushMulaw(script(f), false));
  a.close();
  a.close();
  const out = await Promise.all(pending);
  t.same(out.flat(), [], 'nothing is emitted after close');
  t.same(await a.pushMulaw(TONE, false), []);
  t.ok(a.closed);
});

t.test('resolveBargeIn through the channel recovers a backchannel', async (t) => {
  const pool = new AudioPool({ threads: 1 });
  t.teardown(() => pool.close());
  const c = pool.openCall('bi', settings);
  const ev: AudioEvent[] = [];
  for (let f = 0; f < 30; f++) ev.push(...(await c.pushMulaw(f >= 5 ? TONE : SILENCE, true)));
  t.ok(ev.some((e) => e.type === 'BargeInDetected'));
  const rec = await c.resolveBargeIn('backchannel');
  t.same(rec.map((e) => e.type), ['InterruptionRecovered']);
  t.equal(c.state.bargeIn, 'none');
});

t.test('analyze runs a whole recording on a worker', async (t) => {
  const pool = new AudioPool({ threads: 1 });
  t.teardown(() => pool.close());
  const pcm = new Int16Array(16000 * 3);
  for (let i = 4000; i < 20000; i++) pcm[i] = Math.round(8000 * Math.sin((i * 2 * Math.PI * 300) / 16000));
  const res = await pool.analyze(pcm, 16000, { turnDetectionTimeoutMs: 800, interruptionSensitivity: 0.5 });
  t.equal(res.segments.length, 1);
  t.ok(Math.abs(res.segments[0].startMs - 250) <= 40, `segment starts at ${res.segments[0].startMs}`);
  t.ok(res.events.some((e) => e.type === 'TurnEnded'));
});
