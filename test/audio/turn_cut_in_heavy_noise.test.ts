// Scenario: in heavy stationary noise (5 dB SNR) a level detector lost the quieter syllables under the noise
// floor and ended turns in the middle of a sentence. Synthetic speech-like turns in white, pink and brown noise,
// 8 kHz mu-law and 16 kHz: every turn ends once, after its last syllable, and never inside (pause included).
import t from 'tap';
import { createCallAudioState, mulawDecode, mulawEncode, resample, stepCallAudio, type AudioEvent } from '../../src/audio/index.js';
import { noisyCall, utterance, type NoiseColour } from './helpers/synth.js';

const TIMEOUT_MS = 800;

function turnEnds(pcm: Int16Array, rate: 8000 | 16000): Extract<AudioEvent, { type: 'TurnEnded' }>[] {
  const s = createCallAudioState({ sampleRateHz: rate, turnDetectionTimeoutMs: TIMEOUT_MS, interruptionSensitivity: 0.5 });
  const out: Extract<AudioEvent, { type: 'TurnEnded' }>[] = [];
  for (let o = 0; o + s.frameSamples <= pcm.length; o += s.frameSamples) {
    for (const e of stepCallAudio(s, pcm.subarray(o, o + s.frameSamples), false)) if (e.type === 'TurnEnded') out.push(e);
  }
  return out;
}

for (const colour of ['white', 'pink', 'brown'] as NoiseColour[]) {
  for (const rate of [8000, 16000] as const) {
    t.test(`two turns in ${colour} noise at 5 dB SNR, ${rate} Hz`, async (t) => {
      // Turn 1: two utterances with a 500 ms pause; a 1.8 s gap; turn 2: one utterance. Background before and after.
      const { pcm: pcm16, segments } = noisyCall(
        [800, utterance(8, 1), 500, utterance(6, 2), 1800, utterance(7, 3), 1500], colour, 5, 7,
      );
      const pcm = rate === 16000 ? pcm16 : mulawDecode(mulawEncode(resample(pcm16, 16000, 8000)));
      const turns = [{ startMs: segments[0].startMs, endMs: segments[1].endMs }, segments[2]];
      const ends = turnEnds(pcm, rate);
      t.equal(ends.length, 2, `one end per turn (${ends.map((e) => e.atMs).join(', ')})`);
      for (const [i, turn] of turns.entries()) {
        const e = ends[i];
        t.ok(e && e.reason === 'silence' && e.atMs > turn.endMs + TIMEOUT_MS - 250 && e.atMs < turn.endMs + TIMEOUT_MS + 300,
          `turn ${i} ends ${e ? e.atMs - turn.endMs : '-'} ms after its last syllable`);
      }
    });
  }
}
