/**
 * The agent's tones (src/carriers/dtmf.ts): each key as its ITU pair of frequencies for 100 ms, then 100 ms of
 * silence, in 20 ms mu-law frames; a `w` waits half a second. Read back with a Goertzel detector: every key is the
 * key it was meant to be, and silence or speech-like noise is no key.
 */
import t from 'tap';
import { mulawDecode } from '../../src/audio/index.js';
import { detectDigit, dtmfFrames, KEY_DIGITS } from '../../src/carriers/dtmf.js';

const pcmOf = (frames: Uint8Array[]) => mulawDecode(Buffer.concat(frames));

t.test('every key comes back as itself', async (t) => {
  for (const d of KEY_DIGITS) {
    const frames = dtmfFrames(d);
    t.equal(frames.length, 10, `${d}: 100 ms of tone and 100 ms of silence`);
    t.ok(frames.every((f) => f.length === 160), '20 ms frames at 8 kHz');
    t.equal(detectDigit(pcmOf(frames.slice(0, 5))), d, `key ${d}`);
    t.equal(detectDigit(pcmOf(frames.slice(5))), undefined, 'the gap is silence');
  }
});

t.test('a sequence, a wait, and what is not a key', async (t) => {
  const frames = dtmfFrames('1w#');
  t.equal(frames.length, 10 + 25 + 10);
  t.equal(detectDigit(pcmOf(frames.slice(35, 40))), '#');
  t.same(dtmfFrames('x?'), [], 'unknown characters make no sound');
  let seed = 7;
  const noise = Int16Array.from({ length: 800 }, () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return (seed % 8000) - 4000; });
  t.equal(detectDigit(noise), undefined, 'noise is no key');
});
