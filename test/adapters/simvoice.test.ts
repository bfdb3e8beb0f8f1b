import t from 'tap';
import fc from 'fast-check';
import { encodeSimVoice, decodeSimVoice, simVoiceChunks, simVoiceDurationMs, SimVoiceDecoder } from '../../src/simvoice/index.js';
import { FrameSplitter, mulawDecode, mulawEncode, resample, analyzePcm } from '../../src/audio/index.js';

const rms = (pcm: Int16Array) => Math.sqrt(pcm.reduce((n, v) => n + v * v, 0) / pcm.length);

t.test('round trip keeps text, case, digits and punctuation', async (t) => {
  for (const text of ['Hello, my name is Anna Lee.', 'uh huh', 'tomorrow at 10 am', 'Budget: $400,000 (about 3.5 crore)!', 'Bookkeeper aaa zzz 1000']) {
    t.equal(decodeSimVoice(encodeSimVoice(text)), text);
  }
  t.equal(decodeSimVoice(encodeSimVoice('  spaced   out  ')), 'spaced out', 'whitespace normalised');
  t.equal(decodeSimVoice(encodeSimVoice('café ñandú')), 'cafe nandu', 'accents folded');
  t.equal(encodeSimVoice('').length, 0);
});

t.test('survives mu-law, 20 ms framing, odd chunk splits and a media-time offset', async (t) => {
  const text = 'I am looking for a two bedroom apartment.';
  const wire = mulawEncode(encodeSimVoice(text, { voice: 'caller' }));
  const splitter = new FrameSplitter({ sampleRateHz: 8000 });
  const decoder = new SimVoiceDecoder(8000);
  // 3.3 s of line silence first, then the speech delivered in 20 ms mu-law frames, re-chunked unevenly
  let atMs = 0;
  decoder.write(new Int16Array(8000 * 3.3), atMs);
  atMs += 3300;
  const frames = splitter.write(mulawDecode(wire)).concat(splitter.flush());
  for (const f of frames) {
    for (const [a, b] of [[0, 37], [37, 101], [101, 160]]) decoder.write(f.subarray(a, b));
  }
  const r = decoder.finish();
  t.equal(r.text, text);
  t.ok(r.startMs >= 3300 && r.startMs < 3300 + 200, `starts at media time ${r.startMs}`);
  t.ok(r.endMs <= 3300 + simVoiceDurationMs(text) + 20, `ends at ${r.endMs}`);
});

t.test('property: random sentences survive mu-law at any start offset and chunk size', async () => {
  const word = fc.stringMatching(/^[A-Za-z0-9.,?!'$%-]{1,8}$/);
  fc.assert(fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 1, max: 500 }),
    (words, offset, chunk) => {
      const text = words.join(' ');
      const pcm = mulawDecode(mulawEncode(encodeSimVoice(text)));
      const d = new SimVoiceDecoder(8000);
      d.write(new Int16Array(offset), 0);
      for (let i = 0; i < pcm.length; i += chunk) d.write(pcm.subarray(i, i + chunk));
      const got = d.finish().text;
      if (got !== text) throw new Error(`${JSON.stringify(text)} decoded as ${JSON.stringify(got)}`);
    }), { numRuns: 40, seed: 42 });
});

t.test('tolerates level changes and line noise (down to about 6 dB SNR)', async (t) => {
  const text = 'I am looking for a two bedroom apartment, budget $400,000.';
  const voice = encodeSimVoice(text);
  let seed = 3;
  const noise = () => { seed = (seed * 1103515245 + 12345) >>> 0; return ((seed >>> 8) / (1 << 24) - 0.5) * 3.46; }; // unit RMS
  for (const [gain, noiseRms] of [[2, 300], [0.3, 300], [0.1, 0], [0.06, 0], [0.1, 100]]) {
    const x = voice.map((v) => Math.max(-32768, Math.min(32767, Math.round(v * gain + noise() * noiseRms))));
    t.equal(decodeSimVoice(mulawDecode(mulawEncode(x))), text, `gain ${gain}, noise RMS ${noiseRms}`);
  }
});

t.test('works at 16 kHz and after resampling 8 -> 16 kHz', async (t) => {
  t.equal(decodeSimVoice(encodeSimVoice('sixteen kHz', { sampleRateHz: 16000 }), 16000), 'sixteen kHz');
  t.equal(decodeSimVoice(resample(encodeSimVoice('resampled words'), 8000, 16000), 16000), 'resampled words');
});

t.test('audio without a SimVoice payload decodes as empty text', async (t) => {
  let seed = 1;
  const noise = new Int16Array(40_000).map(() => { seed = (seed * 1103515245 + 12345) >>> 0; return ((seed >>> 16) % 12_000) - 6000; });
  t.equal(decodeSimVoice(noise), '');
  // a voiced vowel-like signal: harmonics of 120 Hz with formant weighting, 2 s
  const vowel = new Int16Array(16_000).map((_, i) => Math.round([1, 0.8, 1.2, 0.5, 0.9, 0.3, 0.6].reduce((v, a, k) => v + 1500 * a * Math.sin(2 * Math.PI * 120 * (k + 1) * i / 8000), 0)));
  t.equal(decodeSimVoice(vowel), '');
  t.equal(decodeSimVoice(new Int16Array(8000)), '', 'silence');
});

t.test('sounds like speech to the audio detector: one segment per utterance, word pauses bridged', async (t) => {
  const text = 'My budget is around 400,000 dollars.';
  const voice = encodeSimVoice(text);
  t.ok(rms(voice) > 1000, `level ${rms(voice).toFixed(0)} RMS`);
  const pcm = new Int16Array(voice.length + 16_000);
  pcm.set(voice, 4000);
  const r = analyzePcm(mulawDecode(mulawEncode(pcm)), 8000, { interruptionSensitivity: 0.5, turnDetectionTimeoutMs: 800 });
  t.equal(r.segments.length, 1, 'one speech segment');
  t.ok(Math.abs(r.segments[0].startMs - 500) <= 40, `onset ${r.segments[0].startMs} ms`);
  t.equal(r.events.filter((e) => e.type === 'TurnEnded').length, 1, 'one turn');
  const dur = simVoiceDurationMs(text);
  t.ok(text.length / (dur / 1000) > 11 && text.length / (dur / 1000) < 16, `${(text.length / (dur / 1000)).toFixed(1)} chars/s`);
});

t.test('streams one chunk per word, contiguous with the whole rendering', async (t) => {
  const chunks = [...simVoiceChunks('one two three')];
  t.equal(chunks.length, 3);
  const whole = encodeSimVoice('one two three');
  t.equal(chunks.reduce((n, c) => n + c.length, 0), whole.length);
  t.same(Array.from(chunks[1].subarray(0, 50)), Array.from(whole.subarray(chunks[0].length, chunks[0].length + 50)));
});
