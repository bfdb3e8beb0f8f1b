import t from 'tap';
import { AudioError, concatPcm, readWav, WavDecoder, writeWav } from '../../src/audio/index.js';
import { buildWav, chunk, hexBytes, le16, le24, le32f, le32i, le64f } from './helpers/wav_build.js';

const code = (fn: () => unknown): string => {
  try { fn(); } catch (e) { return e instanceof AudioError ? e.code : `not an AudioError: ${String(e)}`; }
  return 'no error';
};

t.test('PCM bit depths', async (t) => {
  t.same([...readWav(buildWav({ bitsPerSample: 8, data: Uint8Array.of(0, 128, 255) })).pcm], [-32768, 0, 32512], '8-bit is unsigned');
  t.same([...readWav(buildWav({ data: le16([1, -2, 32767, -32768]) })).pcm], [1, -2, 32767, -32768]);
  t.same([...readWav(buildWav({ bitsPerSample: 24, data: le24([0x123456, -1, -0x800000]) })).pcm], [0x1234, -1, -32768]);
  t.same([...readWav(buildWav({ bitsPerSample: 32, data: le32i([0x7fffffff, -0x80000000, 0x00010000]) })).pcm], [32767, -32768, 1]);
  const w = readWav(buildWav({ sampleRateHz: 16000, data: le16(new Array(320).fill(5)) }));
  t.equal(w.sampleRateHz, 16000);
  t.equal(w.durationMs, 20);
});

t.test('24-bit audio in 32-bit containers (blockAlign decides the container)', async (t) => {
  const data = le32i([0x12345600, 0x7fffff00]); // one stereo frame, left-justified
  t.same([...readWav(buildWav({ channels: 2, bitsPerSample: 24, blockAlign: 8, data })).pcm], [Math.round((0x1234 + 0x7fff) / 2)]);
});

t.test('float 32 and 64, clamped, NaN as silence', async (t) => {
  t.same([...readWav(buildWav({ formatCode: 3, bitsPerSample: 32, data: le32f([0, 0.5, -1, 1.5, NaN]) })).pcm], [0, 16384, -32768, 32767, 0]);
  t.same([...readWav(buildWav({ formatCode: 3, bitsPerSample: 64, cbSize: true, data: le64f([0.25, -0.25]) })).pcm], [8192, -8192]);
});

t.test('G.711 formats 7 and 6', async (t) => {
  t.same([...readWav(buildWav({ formatCode: 7, bitsPerSample: 8, cbSize: true, data: Uint8Array.of(0xff, 0x80, 0x00) })).pcm], [0, 32124, -32124]);
  t.same([...readWav(buildWav({ formatCode: 6, bitsPerSample: 8, data: Uint8Array.of(0xd5, 0xaa, 0x2a) })).pcm], [8, 32256, -32256]);
  // A mu-law WAV as carriers write it: an 18-byte fmt chunk (cbSize 0) and a fact chunk before the data, both read past.
  const head = hexBytes(`52 49 46 46 d2 00 00 00 57 41 56 45 66 6d 74 20 12 00 00 00 07 00 01 00 40 1f 00 00 40 1f 00 00
    01 00 08 00 00 00 66 61 63 74 04 00 00 00 a0 00 00 00 64 61 74 61 a0 00 00 00`);
  const file = new Uint8Array(head.length + 160).fill(0xff);
  file.set(head);
  const w = readWav(file);
  t.equal(w.sampleRateHz, 8000);
  t.equal(w.pcm.length, 160);
  t.equal(w.durationMs, 20);
});

t.test('WAVE_FORMAT_EXTENSIBLE dispatches on the SubFormat GUID', async (t) => {
  const pcm24 = buildWav({ formatCode: 0xfffe, subFormat: 1, channels: 2, sampleRateHz: 48000, bitsPerSample: 24, data: le24([0x100000, 0x300000]) });
  t.same([...readWav(pcm24).pcm], [0x2000]);
  t.equal(readWav(pcm24).sampleRateHz, 48000);
  const valid20 = buildWav({ formatCode: 0xfffe, subFormat: 1, bitsPerSample: 24, validBits: 20, data: le24([0x123450]) });
  t.same([...readWav(valid20).pcm], [0x1234], '20 valid bits, left-justified');
  t.same([...readWav(buildWav({ formatCode: 0xfffe, subFormat: 3, bitsPerSample: 32, data: le32f([-0.5]) })).pcm], [-16384]);
  t.same([...readWav(buildWav({ formatCode: 0xfffe, subFormat: 7, bitsPerSample: 8, data: Uint8Array.of(0x80) })).pcm], [32124]);
  t.equal(code(() => readWav(buildWav({ formatCode: 0xfffe, subFormat: 2, bitsPerSample: 4, data: Uint8Array.of(1) }))), 'wav_unsupported');
  const noExt = buildWav({ formatCode: 0xfffe, data: le16([1]) }).slice();
  t.equal(readWav(buildWav({ formatCode: 0xfffe, validBits: 0, data: le16([7]) })).pcm[0], 7, 'valid bits 0 = container');
  t.ok(noExt.length > 0);
});

t.test('stereo is downmixed by averaging', async (t) => {
  const w = readWav(buildWav({ channels: 2, data: le16([1000, 3000, -32768, -32768, 1, 2]) }));
  t.equal(w.channels, 2);
  t.same([...w.pcm], [2000, -32768, 2]);
});

t.test('chunk layout quirks', async (t) => {
  const data = le16([1, 2, 3]);
  const odd = buildWav({ chunksBefore: [{ id: 'LIST', body: Uint8Array.of(1, 2, 3) }, { id: 'JUNK', body: new Uint8Array(5) }], data });
  t.same([...readWav(odd).pcm], [1, 2, 3], 'odd-size chunks before data with pad bytes');
  const oddFmt = buildWav({ cbSize: true, fmtExtra: [9], data }); // 19-byte fmt + pad
  t.same([...readWav(oddFmt).pcm], [1, 2, 3], 'odd-size fmt chunk');
  const after = buildWav({ data, chunksAfter: [{ id: 'LIST', body: new Uint8Array(11) }] });
  t.same([...readWav(after).pcm], [1, 2, 3], 'chunks after data are ignored');
  const oddData = buildWav({ bitsPerSample: 8, data: Uint8Array.of(128, 129, 130), chunksAfter: [{ id: 'id3 ', body: new Uint8Array(4) }] });
  t.same([...readWav(oddData).pcm], [0, 256, 512], 'odd data size with pad, then a chunk');
  t.same([...readWav(buildWav({ data, dataSize: 0 })).pcm], [1, 2, 3], 'data size 0 = to EOF');
  t.same([...readWav(buildWav({ data, dataSize: 0xffffffff })).pcm], [1, 2, 3], 'data size 0xFFFFFFFF = to EOF');
  t.same([...readWav(buildWav({ data, dataSize: 1000 })).pcm], [1, 2, 3], 'over-declared data size = to EOF');
  t.same([...readWav(buildWav({ data: Uint8Array.of(1, 0, 2, 0, 3) })).pcm], [1, 2], 'trailing partial sample dropped');
  t.same([...readWav(buildWav({ riffId: 'RF64', data, dataSize: 0xffffffff, chunksBefore: [{ id: 'ds64', body: new Uint8Array(28) }] })).pcm], [1, 2, 3], 'RF64 with placeholder sizes');
});

t.test('errors carry stable codes', async (t) => {
  const data = le16([1, 2]);
  const full = buildWav({ data });
  t.equal(code(() => readWav(new Uint8Array(0))), 'audio_empty');
  t.equal(code(() => readWav(full.subarray(0, 30))), 'wav_truncated', 'EOF inside fmt');
  t.equal(code(() => readWav(full.subarray(0, 38))), 'wav_truncated', 'EOF inside the data chunk id');
  t.equal(code(() => readWav(full.subarray(0, 44))), 'audio_empty', 'data chunk header but no samples');
  t.equal(code(() => readWav(full.subarray(0, 6))), 'wav_truncated');
  t.equal(code(() => readWav(new TextEncoder().encode('hello world, not audio at all'))), 'wav_malformed');
  t.equal(code(() => readWav(buildWav({ form: 'AVI ', data }))), 'wav_malformed');
  t.equal(code(() => readWav(buildWav({ riffId: 'RIFX', data }))), 'wav_unsupported');
  t.equal(code(() => readWav(buildWav({ dataBeforeFmt: true, data }))), 'wav_malformed');
  t.equal(code(() => readWav(buildWav({ channels: 0, blockAlign: 2, data }))), 'wav_malformed');
  t.equal(code(() => readWav(buildWav({ sampleRateHz: 0, data }))), 'wav_malformed');
  t.equal(code(() => readWav(buildWav({ blockAlign: 0, data }))), 'wav_malformed');
  t.equal(code(() => readWav(buildWav({ formatCode: 2, bitsPerSample: 4, data }))), 'wav_unsupported', 'ADPCM');
  t.equal(code(() => readWav(buildWav({ channels: 9, data: new Uint8Array(18) }))), 'wav_unsupported');
  t.equal(code(() => readWav(buildWav({ bitsPerSample: 64, data: new Uint8Array(16) }))), 'wav_unsupported');
  const shortFmt = new Uint8Array([...full.subarray(0, 12), ...chunk('fmt ', new Uint8Array(12)), ...chunk('data', data)]);
  t.equal(code(() => readWav(shortFmt)), 'wav_malformed', 'fmt shorter than 16 bytes');
  const huge = new Uint8Array([...full.subarray(0, 12), ...chunk('LIST', new Uint8Array(0), 0xfffffff0)]);
  t.equal(code(() => readWav(huge)), 'wav_truncated', 'a chunk claiming 4 GiB is skipped, not allocated');
});

t.test('limits', async (t) => {
  const oneSecond = buildWav({ data: new Uint8Array(16000) });
  t.equal(code(() => readWav(oneSecond, { maxDurationMs: 500 })), 'audio_too_long');
  t.equal(readWav(oneSecond, { maxDurationMs: 1000 }).durationMs, 1000);
  t.equal(code(() => readWav(oneSecond, { maxBytes: 1000 })), 'wav_too_large');
  const dec = new WavDecoder({ maxBytes: 100 });
  t.equal(code(() => { dec.write(oneSecond.subarray(0, 60)); dec.write(oneSecond.subarray(60, 200)); }), 'wav_too_large');
  t.equal(code(() => dec.write(new Uint8Array(1))), 'wav_too_large', 'the decoder stays failed');
});

/** Every file the reader accepts must decode identically however its bytes are split. */
const samples: [string, Uint8Array][] = [
  ['pcm16 mono', buildWav({ data: le16([1, -2, 3, -4, 5]) })],
  ['8-bit with odd padding and LIST', buildWav({ bitsPerSample: 8, data: Uint8Array.of(1, 2, 3), chunksBefore: [{ id: 'LIST', body: Uint8Array.of(7) }] })],
  ['24-bit stereo', buildWav({ channels: 2, bitsPerSample: 24, data: le24([1 << 8, 3 << 8, -5 << 8, -7 << 8]) })],
  ['extensible float stereo', buildWav({ formatCode: 0xfffe, subFormat: 3, channels: 2, bitsPerSample: 32, data: le32f([0.1, 0.2, -0.3, -0.4]) })],
  ['mu-law to EOF', buildWav({ formatCode: 7, bitsPerSample: 8, cbSize: true, data: Uint8Array.of(0, 0x80, 0xff, 0x7f), dataSize: 0xffffffff })],
];

t.test('WavDecoder survives input split at every offset', async (t) => {
  for (const [name, bytes] of samples) {
    const expected = [...readWav(bytes).pcm];
    for (let cut = 0; cut <= bytes.length; cut++) {
      const dec = new WavDecoder();
      const parts = [...dec.write(bytes.subarray(0, cut)), ...dec.write(bytes.subarray(cut)), ...dec.flush()];
      if (String([...concatPcm(parts.length ? parts : [new Int16Array(0)])]) !== String(expected)) {
        t.fail(`${name}: split at ${cut} differs`);
      }
    }
    const dec = new WavDecoder();
    const parts: Int16Array[] = [];
    for (let i = 0; i < bytes.length; i++) parts.push(...dec.write(bytes.subarray(i, i + 1)));
    t.same([...concatPcm(parts)], expected, `${name}: one byte at a time`);
  }
});

t.test('writeWav writes the canonical header and round-trips', async (t) => {
  const mono = writeWav({ sampleRateHz: 8000, channels: [new Int16Array(160)] });
  t.same([...mono.subarray(0, 44)], [...hexBytes(`52 49 46 46 64 01 00 00 57 41 56 45 66 6d 74 20 10 00 00 00 01 00 01 00
    40 1f 00 00 80 3e 00 00 02 00 10 00 64 61 74 61 40 01 00 00`)]);
  const caller = Int16Array.of(100, 200, 300);
  const agent = Int16Array.of(-100, 0);
  const stereo = writeWav({ sampleRateHz: 16000, channels: [caller, agent] });
  t.same([...new Int16Array(stereo.buffer.slice(44))], [100, -100, 200, 0, 300, 0], 'interleaved, shorter channel padded');
  const back = readWav(stereo);
  t.equal(back.channels, 2);
  t.same([...back.pcm], [0, 100, 150]);
});
