import t from 'tap';
import {
  createCallAudioState, resolveBargeIn, stepCallAudio, type AudioEvent, type CallAudioState,
} from '../../src/audio/index.js';
import { classifyUtterance, isBackchannel } from '../../src/session/utterance.js';

const base = { sampleRateHz: 8000, turnDetectionTimeoutMs: 800, interruptionSensitivity: 0.5 } as const;
const FRAME = 160;
function tone(frames: number, amp = 8000): Int16Array {
  const x = new Int16Array(frames * FRAME);
  for (let i = 0; i < x.length; i++) x[i] = Math.round(amp * Math.sin((i * 2 * Math.PI * 440) / 8000) * (1 + 0.3 * Math.sin(i / 300)));
  return x;
}
function noise(frames: number, amp = 30, seed = 1): Int16Array {
  const x = new Int16Array(frames * FRAME);
  let s = seed;
  for (let i = 0; i < x.length; i++) { s = (s * 1103515245 + 12345) >>> 0; x[i] = Math.round(((s / 2 ** 32) - 0.5) * 2 * amp); }
  return x;
}
function run(state: CallAudioState, parts: [Int16Array, boolean][]): AudioEvent[] {
  return parts.flatMap(([pcm, agent]) => {
    const out: AudioEvent[] = [];
    for (let o = 0; o < pcm.length; o += FRAME) out.push(...stepCallAudio(state, pcm.subarray(o, o + FRAME), agent));
    return out;
  });
}

t.test('a turn: speech, a short pause, more speech, then silence beyond the timeout', async (t) => {
  const s = createCallAudioState(base);
  const ev = run(s, [[noise(25), false], [tone(50), false], [noise(20), false], [tone(30), false], [noise(60), false]]);
  const turns = ev.filter((e) => e.type === 'TurnEnded');
  t.equal(turns.length, 1, 'the 400 ms pause does not end the turn');
  const te = turns[0] as Extract<AudioEvent, { type: 'TurnEnded' }>;
  t.equal(te.reason, 'silence');
  t.ok(Math.abs(te.speechStartMs - 500) <= 40, `starts ~500 ms (${te.speechStartMs})`);
  t.ok(Math.abs(te.speechEndMs - 2500) <= 80, `speech end estimate ~2500 ms (${te.speechEndMs})`);
  t.equal(te.atMs - te.speechEndMs, 800, 'decided exactly the timeout after the speech end estimate');
  t.ok(ev.every((e, i) => i === 0 || e.atMs >= ev[i - 1].atMs), 'events are in media-time order');
});

t.test('a caller who gets much quieter after a loud turn is still heard', async (t) => {
  const s = createCallAudioState(base);
  const ev = run(s, [[noise(25), false], [tone(50, 20000), false], [noise(250), false], [tone(50, 1500), false], [noise(60), false]]);
  t.equal(ev.filter((e) => e.type === 'TurnEnded').length, 2, 'the -22 dB second turn is detected');
});

t.test('max_wait caps a turn that never goes quiet', async (t) => {
  const s = createCallAudioState({ ...base, maxTurnMs: 2000 });
  const ev = run(s, [[noise(25), false], [tone(150), false]]);
  const te = ev.find((e) => e.type === 'TurnEnded');
  t.equal(te?.type === 'TurnEnded' && te.reason, 'max_wait');
});

t.test('lone clicks do not start speech', async (t) => {
  const s = createCallAudioState(base);
  const x = noise(100);
  for (let f = 10; f < 100; f += 9) for (let i = 0; i < 24; i++) x[f * FRAME + 40 + i] = i % 2 ? 12000 : -12000; // 3 ms clicks
  t.same(run(s, [[x, true]]), []);
});

t.test('barge-in: detected while the agent speaks, then a backchannel transcript recovers it', async (t) => {
  const s = createCallAudioState(base);
  const ev = run(s, [[noise(20), true], [tone(20), true]]);
  const bi = ev.find((e) => e.type === 'BargeInDetected');
  t.ok(bi, 'detected');
  t.ok(bi!.atMs - 400 <= 300, `within 300 ms of onset (${bi!.atMs - 400})`);
  t.same(resolveBargeIn(s, classifyUtterance('Uh-huh.')).map((e) => e.type), ['InterruptionRecovered']);
  t.same(resolveBargeIn(s, classifyUtterance('anything')), [], 'nothing pending any more');
  const after = run(s, [[noise(60), false]]);
  t.notOk(after.some((e) => e.type === 'TurnEnded'), 'a recovered backchannel is not a turn');
});

t.test('barge-in confirmed by a real sentence, and the turn then ends normally', async (t) => {
  const s = createCallAudioState(base);
  run(s, [[noise(20), true], [tone(15), true]]);
  t.same(resolveBargeIn(s, classifyUtterance('Sorry, that is not what I asked')).map((e) => e.type), ['BargeInConfirmed']);
  const ev = run(s, [[tone(40), false], [noise(60), false]]);
  t.ok(ev.some((e) => e.type === 'TurnEnded'));
});

t.test('a short burst over the agent is recovered when the speech stops too soon', async (t) => {
  const s = createCallAudioState(base);
  const ev = run(s, [[noise(20), true], [tone(20), true], [noise(40), true]]);
  t.same(ev.filter((e) => e.type !== 'SpeechStarted' && e.type !== 'SpeechStopped').map((e) => e.type), ['BargeInDetected', 'InterruptionRecovered']);
  const rec = ev.find((e) => e.type === 'InterruptionRecovered');
  t.equal(rec?.type === 'InterruptionRecovered' && rec.reason, 'short_speech');
});

t.test('interruption sensitivity: 0 never interrupts, 1 interrupts sooner than 0.2', async (t) => {
  const at = (sens: number) => {
    const s = createCallAudioState({ ...base, interruptionSensitivity: sens });
    return run(s, [[noise(20), true], [tone(100), true]]).find((e) => e.type === 'BargeInDetected')?.atMs;
  };
  t.equal(at(0), undefined);
  t.ok(at(1)! < at(0.2)!, `${at(1)} < ${at(0.2)}`);
});

t.test('state is plain data: a JSON copy continues exactly like the original', async (t) => {
  const a = createCallAudioState(base);
  run(a, [[noise(20), false], [tone(30), false]]);
  const b = JSON.parse(JSON.stringify(a)) as CallAudioState;
  const rest: [Int16Array, boolean][] = [[tone(10), false], [noise(60), false]];
  t.same(run(b, rest), run(a, rest));
});

t.test('settings are validated', async (t) => {
  t.throws(() => createCallAudioState({ ...base, sampleRateHz: 44100 as 8000 }));
  t.throws(() => createCallAudioState({ ...base, interruptionSensitivity: 2 }));
  t.throws(() => stepCallAudio(createCallAudioState(base), new Int16Array(100), false));
});

t.test('backchannel texts', async (t) => {
  for (const s of ['uh huh', 'Uh-huh.', 'okay', 'OK!', 'yeah', 'mm hmm', 'right', 'all right', 'I see', 'got it', 'yeah okay']) t.ok(isBackchannel(s), s);
  for (const s of ['', 'stop', 'wait a second', 'Sorry, that is not what I asked', 'I', 'all of it', 'yeah but no I want a refund']) t.notOk(isBackchannel(s), s);
});
