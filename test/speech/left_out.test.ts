/**
 * Speech a reading leaves out (src/speech/ears/left_out.ts): pauses of the decoder's path that are as loud as its
 * words. On the measure itself with made-up alignments, then through the recogniser: a second answer after the asked
 * one is heard with the several-answers grammar, everyday speech read as a short answer with the rest in a pause is
 * rejected, and answers with real pauses are kept.
 */
import t from 'tap';
import { leftOutMs, MAX_LEFT_OUT_MS } from '../../src/speech/ears/left_out.js';
import { recognise } from '../../src/speech/ears/recogniser.js';
import { closeSpeechPool } from '../../src/speech/pool.js';
import { phoneLine } from './helpers/phone_line.js';

t.teardown(closeSpeechPool);

/** a reading's segments as the decoder aligns them (seconds) */
const aligned = (w: Array<[string, number, number]>) => w.map(([t, b, d]) => ({ t, b, d, p: 1 }));
/** frame powers: loud (speech) and quiet frames, 10 ms each */
const powers = (...runs: Array<[number, number]>) => runs.flatMap(([n, p]) => Array<number>(n).fill(p));

t.test('the measure: loud frames inside a pause count, quiet ones and the grammar\'s joints do not', async (t) => {
  const p = powers([20, 10], [50, 1e6], [40, 1e6], [30, 10]); // quiet 0.2 s, words 0.5 s, more speech 0.4 s, quiet 0.3 s
  t.equal(leftOutMs(aligned([['<sil>', 0, 0.2], ['michael', 0.2, 0.5], ['<sil>', 0.7, 0.7]]), p), 400, 'the speech after the word');
  t.equal(leftOutMs(aligned([['<sil>', 0, 0.2], ['michael', 0.2, 0.5], ['(NULL)', 0.7, 0.4], ['here', 1.1, 0.01], ['<sil>', 1.11, 0.29]]), p), 0, '(NULL) is no pause');
  t.equal(leftOutMs(aligned([['<sil>', 0, 0.2], ['michael', 0.2, 0.9], ['<sil>', 1.1, 0.3]]), p), 0, 'pauses over quiet frames');
  t.equal(leftOutMs(aligned([['[NOISE]', 0, 1.4]]), p), 0, 'no words: nothing to compare with');
  t.equal(leftOutMs(aligned([['gb_ah', 0, 0.7], ['yes', 0.7, 0.2], ['<sil>', 0.9, 0.5]]), p), 200, 'garbage phones are not the words');
});

const FIELDS = ['customer_name', 'intent', 'budget', 'scheduled_slot'];

t.test('asked one field, a caller who says two answers is heard with both', async (t) => {
  for (const voice of ['kal16', 'awb']) {
    const r = await recognise(await phoneLine('My name is Arjun and my budget is one crore.', voice), 8000, { asking: 'customer_name', open: FIELDS });
    t.equal(r.text, 'my name is arjun and my budget is one crore', `${voice}: ${r.path}`);
  }
});

t.test('everyday speech with the rest of the sentence in a pause is rejected; answers with pauses are kept', async (t) => {
  for (const voice of ['kal16', 'awb']) {
    const r = await recognise(await phoneLine('My daughter starts school in June.', voice), 8000, { asking: 'budget', open: FIELDS });
    t.same({ text: r.text, rejected: r.rejected }, { text: '', rejected: true }, `${voice}: ${r.path}`);
  }
  const kept = await recognise(await phoneLine('Friday, at eleven in the morning.', 'slt'), 8000, { asking: 'scheduled_slot', open: FIELDS });
  t.equal(kept.text, 'friday at 11 am', kept.path);
  t.ok(MAX_LEFT_OUT_MS >= 100, 'a pause may hold a breath or a click');
});
