import t from 'tap';
import { createCallAudioState, stepCallAudio } from '../../src/audio/index.js';
import { PACKED_STATE_LENGTH, packState, unpackState, unpackStateInto } from '../../src/audio/state_codec.js';
import { noisyCall, utterance } from './helpers/synth.js';

t.test('a packed state unpacks to the same state, mid-turn in heavy noise (every field in use)', async (t) => {
  const { pcm } = noisyCall([600, utterance(6, 4), 400, utterance(4, 5)], 'pink', 5, 9);
  const s = createCallAudioState({ sampleRateHz: 16000, turnDetectionTimeoutMs: 800, interruptionSensitivity: 0.7, maxTurnMs: 9000 });
  for (let o = 0; o + 320 <= pcm.length - 320 * 10; o += 320) stepCallAudio(s, pcm.subarray(o, o + 320), o > 16000);
  t.ok(s.vad.gate.bgFrames > 0 && s.vad.gate.bits !== 0 && s.turnOpen, 'background measured, weak speech heard, turn open');
  const a = new Float64Array(PACKED_STATE_LENGTH * 2);
  packState(s, a, PACKED_STATE_LENGTH);
  t.same(unpackState(a, PACKED_STATE_LENGTH), s);
  const scratch = unpackState(a, 0); // slot 0 holds zeros: another call's leftovers, to be overwritten
  t.same(unpackStateInto(a, PACKED_STATE_LENGTH, scratch), s);
  // and both go on to decide the same events
  const copy = unpackState(a, PACKED_STATE_LENGTH);
  const rest = pcm.subarray(pcm.length - 3200);
  const ev = (st: typeof s) => { const out = []; for (let o = 0; o < rest.length; o += 320) out.push(...stepCallAudio(st, rest.subarray(o, o + 320), false)); return out; };
  t.same(ev(copy), ev(s));
});
