// Detector scenarios, one per corpus file (../shared/corpus beside the repo), at 8 kHz mu-law and 16 kHz PCM.
// Media-time accuracy only: no wall-clock timing here.
import t from 'tap';
import { existsSync } from 'node:fs';
import { CORPUS_DIR, loadManifest, loadScenarioPcm, runScenario, score } from '../../bench/audio_corpus_lib.js';

const TIMEOUT_MS = 800;

if (!existsSync(CORPUS_DIR)) {
  t.pass(`corpus not found at ${CORPUS_DIR}: scenarios skipped`);
} else {
  for (const sc of loadManifest()) {
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
