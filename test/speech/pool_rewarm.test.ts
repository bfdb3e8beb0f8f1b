/**
 * A speech thread let go when idle takes its loaded voice and decoder with it: the next warm-up must load them
 * again (before, it returned the old settled promise and the next turn paid the cold load inside its deadline).
 */
import t from 'tap';
import { closeSpeechPool, setSpeechIdleMs, warmEars, warmVoice } from '../../src/speech/pool.js';

t.teardown(closeSpeechPool);

async function until(cond: () => boolean, what: string): Promise<void> {
  for (const end = Date.now() + 30_000; !cond(); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > end) throw new Error(`timed out waiting: ${what}`);
  }
}

t.test('voice and ears warm again after their idle threads were let go', async (t) => {
  setSpeechIdleMs(50);
  const voice = warmVoice();
  const ears = warmEars();
  t.equal(warmVoice(), voice, 'while the thread is up, one warm-up is shared');
  await Promise.all([voice, ears]);
  await until(() => warmVoice() !== voice, 'the voice thread to be let go');
  await until(() => warmEars() !== ears, 'the ears thread to be let go');
  setSpeechIdleMs(120_000);
  await t.resolves(warmVoice(), 'the voice loads again on a new thread');
  await t.resolves(warmEars(), 'the ears load again on a new thread');
});
