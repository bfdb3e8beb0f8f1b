import t from 'tap';
import fc from 'fast-check';
import { AudioError, concatPcm, readWav, WavDecoder } from '../../src/audio/index.js';
import { buildWav, le16, le24, le32f } from './helpers/wav_build.js';

/** Fixed seed so CI is reproducible; FUZZ_SEED / FUZZ_RUNS explore further. */
const seed = Number(process.env.FUZZ_SEED ?? 20261122);
const numRuns = Number(process.env.FUZZ_RUNS ?? 400);

const bases = [
  buildWav({ data: le16([1, -2, 3, -4, 5, 6]), chunksBefore: [{ id: 'LIST', body: Uint8Array.of(1, 2, 3) }] }),
  buildWav({ formatCode: 0xfffe, subFormat: 3, channels: 2, bitsPerSample: 32, data: le32f([0.1, 0.2, -0.3, -0.4]) }),
  buildWav({ formatCode: 7, bitsPerSample: 8, cbSize: true, data: Uint8Array.of(0, 0x80, 0xff, 0x7f), dataSize: 0xffffffff }),
  buildWav({ channels: 2, bitsPerSample: 24, blockAlign: 8, data: new Uint8Array(16) }),
  buildWav({ bitsPerSample: 24, data: le24([1, 2, 3]) }),
];

/** A valid file with some bytes overwritten, some cut off, or a run of random bytes spliced in. */
const mutated = fc.record({
  base: fc.constantFrom(...bases),
  writes: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
  cut: fc.option(fc.nat()),
  splice: fc.option(fc.tuple(fc.nat(), fc.uint8Array({ maxLength: 12 }))),
}).map(({ base, writes, cut, splice }) => {
  let b = base.slice();
  for (const [pos, v] of writes) b[pos % b.length] = v;
  if (splice) {
    const at = splice[0] % (b.length + 1);
    b = Uint8Array.from([...b.subarray(0, at), ...splice[1], ...b.subarray(at)]);
  }
  if (cut !== null) b = b.subarray(0, cut % (b.length + 1));
  return b;
});

/** Reads and returns the outcome as comparable data; anything but AudioError escapes and fails the property. */
function outcome(read: () => Int16Array): string {
  try {
    return `ok:${[...read()].join(',')}`;
  } catch (e) {
    if (e instanceof AudioError) return `err:${e.code}`;
    throw e;
  }
}

function splitRead(bytes: Uint8Array, cuts: number[]): Int16Array {
  const dec = new WavDecoder();
  const parts: Int16Array[] = [];
  let prev = 0;
  for (const c of [...cuts.map((x) => x % (bytes.length + 1))].sort((a, b) => a - b)) {
    parts.push(...dec.write(bytes.subarray(prev, c)));
    prev = c;
  }
  parts.push(...dec.write(bytes.subarray(prev)), ...dec.flush());
  const pcm = concatPcm(parts.length ? parts : [new Int16Array(0)]);
  if (pcm.length === 0) throw new AudioError('audio_empty', 'no samples');
  return pcm;
}

t.test('mutated files: only AudioError or audio, and split input agrees with whole input', async (t) => {
  fc.assert(fc.property(mutated, fc.array(fc.nat(), { maxLength: 4 }), (bytes, cuts) => {
    const whole = outcome(() => readWav(bytes).pcm);
    const split = outcome(() => splitRead(bytes, cuts));
    if (whole !== split) throw new Error(`whole ${whole} vs split ${split}`);
  }), { seed, numRuns });
  t.pass(`seed ${seed}, ${numRuns} runs`);
});

t.test('random bytes behind a RIFF/WAVE magic never crash or hang', async (t) => {
  const magic = Uint8Array.from('RIFF\0\0\0\0WAVE', (c) => c.charCodeAt(0));
  fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (tail) => {
    outcome(() => readWav(Uint8Array.from([...magic, ...tail])).pcm);
  }), { seed, numRuns });
  t.pass();
});

// Inputs the fuzzer has found are kept here as hex with the seed that found them, and must keep giving the
// recorded outcome. Runs so far (seeds 20261122, 28262, 11003, 31525, 5492, 8522; 3000 runs each) found none.
const regressions: { seed: number; hex: string; expect: string }[] = [];

t.test('fuzzer regressions', async (t) => {
  for (const r of regressions) {
    const bytes = Uint8Array.from(r.hex.match(/../g) ?? [], (h) => parseInt(h, 16));
    t.equal(outcome(() => readWav(bytes).pcm), r.expect, `seed ${r.seed}`);
  }
  t.pass(`${regressions.length} kept`);
});
