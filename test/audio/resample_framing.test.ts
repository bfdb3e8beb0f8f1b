import t from 'tap';
import { ByteFrameSplitter, FrameSplitter, resample, StreamingResampler } from '../../src/audio/index.js';

const sine = (hz: number, rate: number, n: number, amp = 10000) =>
  Int16Array.from({ length: n }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * hz * i) / rate)));
/** RMS over the middle half (away from zero-padded edges). */
const rms = (x: Int16Array) => {
  const a = x.subarray(x.length >> 2, (3 * x.length) >> 2);
  return Math.sqrt(a.reduce((s, v) => s + v * v, 0) / a.length);
};

t.test('pass band is kept between every pair of 8/16/24/48 kHz', async (t) => {
  const rates = [8000, 16000, 24000, 48000];
  for (const from of rates) for (const to of rates) {
    const x = sine(1000, from, from / 2);
    const y = resample(x, from, to);
    t.equal(y.length, Math.floor((x.length * to) / from), `${from}->${to} length`);
    t.ok(Math.abs(rms(y) / rms(x) - 1) < 0.01, `${from}->${to} 1 kHz gain ${(rms(y) / rms(x)).toFixed(4)}`);
  }
});

t.test('anti-alias: content above the new Nyquist is removed', async (t) => {
  for (const [from, to, hz] of [[48000, 8000, 6000], [16000, 8000, 5000], [24000, 16000, 10000]]) {
    const y = resample(sine(hz, from, from), from, to);
    const db = 20 * Math.log10(rms(y) / (10000 / Math.SQRT2));
    t.ok(db < -60, `${hz} Hz ${from}->${to}: ${db.toFixed(1)} dB`);
  }
});

t.test('8k -> 16k -> 8k is close to identity in band', async (t) => {
  const x = sine(700, 8000, 4000);
  const y = resample(resample(x, 8000, 16000), 16000, 8000);
  let maxErr = 0;
  for (let i = 1000; i < 3000; i++) maxErr = Math.max(maxErr, Math.abs(y[i] - x[i]));
  t.ok(maxErr < 100, `max error ${maxErr} LSB of 10000`);
});

t.test('a stream resampled in pieces of any size is the whole recording resampled', async (t) => {
  for (const [from, to] of [[16_000, 8000], [8000, 48_000], [48_000, 8000], [8000, 16_000], [24_000, 16_000]]) {
    const pcm = Int16Array.from({ length: from / 2 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / from) + 3000 * Math.sin((2 * Math.PI * 3100 * i) / from)));
    const whole = resample(pcm, from, to);
    for (const cuts of [[320], [1], [7, 13, 320, 1], [pcm.length]]) {
      const r = new StreamingResampler(from, to);
      const out: number[] = [];
      for (let k = 0, at = 0; at < pcm.length; at += cuts[k++ % cuts.length]) out.push(...r.push(pcm.subarray(at, at + cuts[k % cuts.length])));
      // the last outputs wait for the kernel's look-ahead (2 ms at 8 kHz), which the end of the stream gives
      t.ok(out.length >= whole.length - (to * 4) / 1000, `${from}->${to} cut ${cuts}: ${out.length} of ${whole.length} before the end`);
      out.push(...r.flush());
      t.same(out, [...whole], `${from}->${to} cut ${cuts}: the same samples`);
    }
  }
});

t.test('resample rejects nonsense rates', async (t) => {
  t.throws(() => resample(new Int16Array(4), 0, 8000));
  t.throws(() => resample(new Int16Array(4), 8000, 44.1));
});

t.test('FrameSplitter cuts any chunking into 20 ms frames with their own buffers', async (t) => {
  const fs = new FrameSplitter({ sampleRateHz: 16000 });
  const src = Int16Array.from({ length: 1000 }, (_, i) => i);
  const frames: Int16Array[] = [];
  for (let o = 0; o < src.length; o += 77) frames.push(...fs.write(src.subarray(o, o + 77)));
  t.equal(frames.length, 3);
  t.ok(frames.every((f) => f.length === 320 && f.buffer.byteLength === 640));
  t.same([...frames[1].subarray(0, 3)], [320, 321, 322]);
  t.equal(fs.buffered, 40);
  const last = fs.flush();
  t.equal(last.length, 1);
  t.same([...last[0].subarray(38, 42)], [998, 999, 0, 0], 'zero padded');
  t.same(fs.flush(), []);
});

t.test('ByteFrameSplitter for mu-law pads with 0xFF (silence)', async (t) => {
  const bs = new ByteFrameSplitter({ sampleRateHz: 8000 });
  t.same(bs.write(new Uint8Array(100)), []);
  t.equal(bs.write(new Uint8Array(100)).length, 1);
  t.equal(bs.flush(0xff)[0][50], 0xff);
  t.throws(() => new FrameSplitter({ sampleRateHz: 11025 }));
});
