// Detector scenarios, one per corpus file, at 8 kHz mu-law and 16 kHz PCM: ../shared/corpus beside the repo, and
// ../shared/corpus-noisy (heavy stationary noise, 5-8 dB SNR) under the same assertions.
// Media-time accuracy only: no wall-clock timing here.
import t from 'tap';
import { existsSync } from 'node:fs';
import { CORPORA, loadManifest, loadScenarioPcm, runScenario, score } from '../../bench/audio_corpus_lib.js';

const TIMEOUT_MS = 800;

for (const corpus of CORPORA) {
  if (!existsSync(corpus.dir)) {
    t.pass(`${corpus.name} not found at ${corpus.dir}: scenarios skipped`);
    continue;
  }
  for (const sc of loadManifest(corpus.dir)) {
    for (const rate of [8000, 16000] as const) {
      t.test(`${sc.name} @ ${rate} Hz`, async (t) => {
        const events = runScenario(sc, loadScenarioPcm(sc, rate), { rate, timeoutMs: TIMEOUT_MS, sttDelayMs: 300 });
        const s = score(sc, events);
        t.equal(s.premature, 0, 'no turn ends inside a turn');
        t.equal(s.missed, 0, 'every turn ends');
        t.equal(s.spuriousEot, 0, 'no extra turn ends (backchannels, noise)');
        for (const d of s.eotDelays) t.ok(d >= TIMEOUT_MS - 250 && d <= TIMEOUT_MS + 150, `end of turn ${d} ms after speech end`);
        t.equal(s.falseBargeInNoise, 0, 'no barge-in from noise or clicks');
        t.equal(s.missedBargeIns, 0, 'every barge-in detected');
        for (const d of s.bargeInDelays) t.ok(d <= 300, `barge-in detected ${d} ms after onset`);
        t.equal(s.backchannelUnrecovered, 0, 'backchannel barge-ins are recovered');
      });
    }
  }
}
