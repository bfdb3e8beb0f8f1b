/**
 * A benchmark without its data says so and fails (never "0 frames … ok"); from a clone without the shared corpora
 * the audio benches run on the generated SimVoice corpus, whose files and labels are checked here.
 */
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureSimCorpus } from '../bench/sim_corpus.js';
import { loadManifest, loadScenarioPcm } from '../bench/audio_corpus_lib.js';
import { decodeSimVoice } from '../src/simvoice/index.js';

const root = fileURLToPath(new URL('../', import.meta.url));

t.test('a bench whose corpus is missing names where it looked and exits non-zero', async (t) => {
  const empty = mkdtempSync(path.join(tmpdir(), 'voicecall-nocorpus-'));
  t.teardown(() => rmSync(empty, { recursive: true, force: true }));
  for (const bench of ['audio_detect', 'audio_pool', 'audio_noise_mix']) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${bench}.bench.ts`], {
      cwd: root, env: { ...process.env, VOICECALL_CORPUS_DIR: empty }, encoding: 'utf8', timeout: 120_000,
    });
    t.equal(r.status, 2, `${bench} exits 2`);
    t.match(r.stderr, new RegExp(`needs its labelled audio and found none: looked for manifest.json in ${empty}/corpus`), bench);
    t.notMatch(r.stdout, /0 frames|Infinity/, `${bench} reports no empty figures`);
  }
});

t.test('the generated corpus: labelled turns whose audio carries their words', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'voicecall-simcorpus-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  ensureSimCorpus(dir);
  const scenarios = loadManifest(dir);
  t.equal(scenarios.length, 6);
  t.equal(scenarios.reduce((n, s) => n + s.turns.length, 0), 14);
  for (const sc of scenarios) {
    const pcm8 = loadScenarioPcm(sc, 8000);
    const pcm16 = loadScenarioPcm(sc, 16000);
    t.equal(Math.round(pcm8.length / 8), Math.round(pcm16.length / 16), `${sc.name}: both rates last as long`);
    t.ok(Math.abs(pcm8.length / 8 - sc.durationMs) <= 1, `${sc.name}: duration as labelled`);
    // each labelled segment's audio decodes to its text (the labels sit where the speech is)
    for (const seg of sc.segments.filter((s) => !/noise|quiet/.test(sc.name))) {
      const words = decodeSimVoice(pcm8.subarray(seg.startMs * 8, seg.endMs * 8 + 80), 8000);
      t.equal(words, seg.text, `${sc.name} segment ${seg.index}`);
    }
  }
  t.same(readFileSync(path.join(dir, 'manifest.json')), (ensureSimCorpus(dir), readFileSync(path.join(dir, 'manifest.json'))), 'kept, not rewritten');
});
