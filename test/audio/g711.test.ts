import t from 'tap';
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { alawDecode, alawEncode, mulawDecode, mulawEncode } from '../../src/audio/index.js';

// Every int16 ascending, -32768..32767: the G.191 sweep.src input.
const sweep = new Int16Array(65536);
for (let i = 0; i < 65536; i++) sweep[i] = i - 32768;
const allCodes = Uint8Array.from({ length: 256 }, (_, i) => i);
const hex = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');
const le16 = (a: Int16Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

t.test('whole-range fingerprints match ITU-T G.191', async (t) => {
  const mu = mulawEncode(sweep);
  const a = alawEncode(sweep);
  t.equal(hex(crc32(mu)), '6399D432');
  t.equal(createHash('sha256').update(mu).digest('hex'), '90c29de505fb68e766118303bd552a16005dcf810873698bee1d8f3b247ce28c');
  t.equal(hex(crc32(a)), '9133796E');
  t.equal(createHash('sha256').update(a).digest('hex'), '38488f6fd710f4686360edc4d38639f96c491595ef93f8eb8d62d5e07ca6ce7b');
  t.equal(hex(crc32(le16(mulawDecode(allCodes)))), '0C847A9F');
  t.equal(hex(crc32(le16(alawDecode(allCodes)))), '9D764657');
});

t.test('point vectors', async (t) => {
  const rows: [number, number, number, number, number][] = [
    [-32768, 0x00, -32124, 0x2a, -32256], [-31612, 0x01, -31100, 0x2b, -31232], [-8160, 0x1f, -8316, 0x0a, -8064],
    [-1000, 0x4e, -988, 0x7a, -1008], [-101, 0x72, -104, 0x53, -104], [-100, 0x73, -96, 0x53, -104],
    [-33, 0x7b, -32, 0x57, -40], [-32, 0x7b, -32, 0x54, -24], [-8, 0x7e, -8, 0x55, -8], [-4, 0x7f, 0, 0x55, -8],
    [-1, 0x7f, 0, 0x55, -8], [0, 0xff, 0, 0xd5, 8], [3, 0xff, 0, 0xd5, 8], [4, 0xfe, 8, 0xd5, 8], [31, 0xfb, 32, 0xd4, 24],
    [32, 0xfb, 32, 0xd7, 40], [100, 0xf2, 104, 0xd3, 104], [1000, 0xce, 988, 0xfa, 1008], [8159, 0x9f, 8316, 0x8a, 8064],
    [32124, 0x80, 32124, 0xaa, 32256], [32767, 0x80, 32124, 0xaa, 32256],
  ];
  for (const [x, mu, muDec, a, aDec] of rows) {
    const pcm = Int16Array.of(x);
    t.equal(mulawEncode(pcm)[0], mu, `mu-law encode ${x}`);
    t.equal(mulawDecode(Uint8Array.of(mu))[0], muDec, `mu-law decode of ${x}'s code`);
    t.equal(alawEncode(pcm)[0], a, `A-law encode ${x}`);
    t.equal(alawDecode(Uint8Array.of(a))[0], aDec, `A-law decode of ${x}'s code`);
  }
  t.same([...mulawDecode(allCodes.subarray(0, 8))], [-32124, -31100, -30076, -29052, -28028, -27004, -25980, -24956]);
  t.same([...alawDecode(allCodes.subarray(0, 8))], [-5504, -5248, -6016, -5760, -4480, -4224, -4992, -4736]);
});

t.test('decode then encode round-trips every code except mu-law 0x7F (-0 -> +0)', async (t) => {
  const mu = mulawEncode(mulawDecode(allCodes));
  const a = alawEncode(alawDecode(allCodes));
  const muBad = [...allCodes].filter((c) => mu[c] !== c);
  t.same(muBad, [0x7f]);
  t.same([...allCodes].filter((c) => a[c] !== c), []);
});

t.test('decode into a caller-supplied buffer', async (t) => {
  const out = new Int16Array(3);
  t.equal(mulawDecode(Uint8Array.of(0xff, 0x80, 0x00), out), out);
  t.same([...out], [0, 32124, -32124]);
});
