import t from 'tap';
import { DEFAULT_TUNING } from '../../src/audio/index.js';
import {
  createNoiseGateState, observeBackground, pushWeak, weakBefore, weakContinues, weakOnsetAgo, weakThresholdDb,
} from '../../src/audio/noise_gate.js';

const T = DEFAULT_TUNING;
const FRAME_MS = 20;

t.test('the threshold comes from the background: none until backgroundMinMs, then mean + weakSigmas spread', async (t) => {
  const g = createNoiseGateState();
  const xs = [0.5, -0.5, 1, -1, 0.5, -0.5, 1, -1, 0.5, -0.5]; // 200 ms, mean 0, spread sqrt(0.55)
  for (const [i, x] of xs.entries()) {
    t.equal(weakThresholdDb(g, T, FRAME_MS), Infinity, `not before ${i * FRAME_MS} ms of background`);
    observeBackground(g, x, T, FRAME_MS);
  }
  t.ok(Math.abs(weakThresholdDb(g, T, FRAME_MS) - T.weakSigmas * Math.sqrt(0.55)) < 1e-9);
});

t.test('a frame far above the background is left out of its statistics; steady background moves them', async (t) => {
  const g = createNoiseGateState();
  for (let i = 0; i < 50; i++) observeBackground(g, i % 2 ? 0.5 : -0.5, T, FRAME_MS);
  const before = weakThresholdDb(g, T, FRAME_MS);
  observeBackground(g, 12, T, FRAME_MS); // a quiet onset nothing confirmed yet
  t.equal(weakThresholdDb(g, T, FRAME_MS), before);
  for (let i = 0; i < 200; i++) observeBackground(g, 1 + (i % 2 ? 0.5 : -0.5), T, FRAME_MS); // background 1 dB higher
  t.ok(Math.abs(weakThresholdDb(g, T, FRAME_MS) - (1 + T.weakSigmas * 0.5)) < 0.05, 'follows within a few time constants');
});

t.test('weak speech goes on only with most of the window, and starts only with most of the longer window', async (t) => {
  const g = createNoiseGateState();
  const push = (pattern: string) => { for (const c of pattern) pushWeak(g, c === '1'); };
  push('1');
  t.notOk(weakContinues(g, T, FRAME_MS), 'one weak frame is not speech');
  push('01');
  t.notOk(weakContinues(g, T, FRAME_MS), '2 of the last 5');
  push('1');
  t.ok(weakContinues(g, T, FRAME_MS), '3 of the last 5, the latest included');
  push('0');
  t.notOk(weakContinues(g, T, FRAME_MS), 'not when the latest frame is not weak');
  t.equal(weakOnsetAgo(g, T, FRAME_MS), -1);
  push('11111');
  t.equal(weakOnsetAgo(g, T, FRAME_MS), 9, 'onset at the first weak frame of the 200 ms window (8 of 10 weak)');
  t.ok(weakBefore(g, T, FRAME_MS));
  push('0000000000');
  t.notOk(weakBefore(g, T, FRAME_MS));
});

t.test('the state is plain JSON', async (t) => {
  const g = createNoiseGateState();
  for (let i = 0; i < 20; i++) { observeBackground(g, (i % 3) - 1, T, FRAME_MS); pushWeak(g, i % 2 === 0); }
  t.same(JSON.parse(JSON.stringify(g)), g);
});
