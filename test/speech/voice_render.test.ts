/**
 * The offline voice in-process (src/speech/voice/flite.ts): each render is a fresh WASI program whose WAV comes back
 * from an in-memory directory; rendering prints nothing (the WASI host logs unless told not to) and many renders in
 * one thread keep working.
 */
import t from 'tap';
import { loadFlite } from '../../src/speech/voice/flite.js';
import { renderAt } from '../../src/speech/voice/render.js';
import { IN_GRAMMAR } from '../../bench/speech_lines.js';

t.test('renders speech in every voice, prints nothing, and keeps going render after render', async (t) => {
  await loadFlite();
  const printed: unknown[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => { printed.push(a); };
  let renders = 0;
  try {
    for (const voice of ['kal16', 'slt', 'rms', 'awb'] as const) {
      for (const text of IN_GRAMMAR.slice(0, 10)) {
        const pcm = renderAt(text, voice, 8000);
        if (pcm.length > 8000 * 0.3) renders++;
      }
    }
  } finally {
    console.log = log;
  }
  t.equal(renders, 40, 'every line came back as at least 0.3 s of audio');
  t.same(printed, [], 'nothing printed');
  t.same(renderAt('...', 'kal16', 8000), new Int16Array(0), 'nothing to say: no audio');
});
