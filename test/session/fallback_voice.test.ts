/** The spoken fallback's last resort: when the voice itself failed before it ever spoke the line, the offline voice says it. */
import t from 'tap';
import { AdapterError, type TextToSpeechAdapter } from '../../src/adapters/index.js';
import { mulawDecode } from '../../src/audio/index.js';
import { fallbackFrames } from '../../src/session/fallback_voice.js';
import { decodeSimVoice } from '../../src/simvoice/index.js';
import { closeSpeechPool } from '../../src/speech/pool.js';
import { offlineMulawFrames } from '../../src/speech/voice/phone_frames.js';
import { FALLBACK_TEXT } from '../../src/session/reply.js';

t.teardown(() => closeSpeechPool());

t.test('a voice that fails before speaking the line: the line in the offline voice, never tone code', async (t) => {
  const failing: TextToSpeechAdapter = { synthesize: () => { throw new AdapterError('tts', 'failed', 'down'); } };
  const frames = await fallbackFrames(failing, 'alloy', 'en-US', true);
  t.ok(frames.length * 20 > 2000, `about 3 s of speech (${frames.length * 20} ms)`);
  t.ok(frames.every((f) => f.length === 160), '20 ms mu-law frames');
  const pcm = new Int16Array(frames.length * 160);
  frames.forEach((f, i) => pcm.set(mulawDecode(f), i * 160));
  t.equal(decodeSimVoice(pcm), '', 'not the simulator tone code');
  t.same(frames, await offlineMulawFrames(FALLBACK_TEXT, 'kal16'), 'the offline voice saying the fallback line');
  t.equal(await fallbackFrames(failing, 'alloy', 'en-US', true), frames, 'rendered once, then kept');
});
