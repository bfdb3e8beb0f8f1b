/**
 * G.711 mu-law and A-law, bit-exact with the ITU-T G.191 reference (`ulaw_compress`/`alaw_compress`).
 *
 * The common bias-0x84 encoders negate negative input (-x); G.191 takes the one's complement (~x = -x-1),
 * which moves 127 decision boundaries by one code. We follow G.191 so golden tests can be exact.
 * Encoding is one lookup in a 65536-entry table (64 KiB each), decoding one lookup in a 256-entry table.
 */

function linearToUlaw(x: number): number {
  let sign = 0;
  if (x < 0) { sign = 0x80; x = ~x; }  // one's complement: the G.191 rule
  if (x > 32635) x = 32635;            // clip so x + bias stays within 15 bits
  x += 0x84;                           // bias 132 = 33 << 2
  let exp = 7;
  for (let m = 0x4000; (x & m) === 0 && exp > 0; m >>= 1) exp--;
  const mant = (x >> (exp + 3)) & 0x0f;
  return ~(sign | (exp << 4) | mant) & 0xff;
}

function ulawToLinear(u: number): number {
  u = ~u & 0xff;
  const exp = (u >> 4) & 7;
  const mag = (((u & 0x0f) << 3) + 0x84 << exp) - 0x84;
  return u & 0x80 ? -mag : mag;
}

const A_SEG_END = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];

function linearToAlaw(x: number): number {
  let mask = 0xd5;
  if (x < 0) { mask = 0x55; x = ~x; }
  x >>= 3;                             // 13-bit domain
  let seg = 0;
  while (seg < 8 && x > A_SEG_END[seg]) seg++;
  if (seg >= 8) return 0x7f ^ mask;
  return ((seg << 4) | ((seg < 2 ? x >> 1 : x >> seg) & 0x0f)) ^ mask;
}

function alawToLinear(a: number): number {
  a ^= 0x55;
  let t = (a & 0x0f) << 4;
  const seg = (a & 0x70) >> 4;
  if (seg === 0) t += 8;
  else if (seg === 1) t += 0x108;
  else t = (t + 0x108) << (seg - 1);
  return a & 0x80 ? t : -t;
}

/** Decode tables: code (0..255) -> int16. */
export const MULAW_DECODE_TABLE = new Int16Array(256);
export const ALAW_DECODE_TABLE = new Int16Array(256);
/** Encode tables indexed by (sample + 32768). */
const MULAW_ENCODE_TABLE = new Uint8Array(65536);
const ALAW_ENCODE_TABLE = new Uint8Array(65536);

for (let c = 0; c < 256; c++) {
  MULAW_DECODE_TABLE[c] = ulawToLinear(c);
  ALAW_DECODE_TABLE[c] = alawToLinear(c);
}
for (let i = 0; i < 65536; i++) {
  MULAW_ENCODE_TABLE[i] = linearToUlaw(i - 32768);
  ALAW_ENCODE_TABLE[i] = linearToAlaw(i - 32768);
}

function decodeWith(table: Int16Array, u8: Uint8Array, out?: Int16Array): Int16Array {
  const pcm = out ?? new Int16Array(u8.length);
  for (let i = 0; i < u8.length; i++) pcm[i] = table[u8[i]];
  return pcm;
}

function encodeWith(table: Uint8Array, pcm: Int16Array): Uint8Array {
  const u8 = new Uint8Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) u8[i] = table[pcm[i] + 32768];
  return u8;
}

/** mu-law bytes -> PCM16. Pass `out` (same length) to decode without allocating. */
/** the mu-law code of a zero sample: what silence is on a G.711 line */
export const MULAW_SILENCE = 0xff;

export function mulawDecode(u8: Uint8Array, out?: Int16Array): Int16Array {
  return decodeWith(MULAW_DECODE_TABLE, u8, out);
}
export function mulawEncode(pcm: Int16Array): Uint8Array {
  return encodeWith(MULAW_ENCODE_TABLE, pcm);
}
/** A-law bytes -> PCM16. Pass `out` (same length) to decode without allocating. */
export function alawDecode(u8: Uint8Array, out?: Int16Array): Int16Array {
  return decodeWith(ALAW_DECODE_TABLE, u8, out);
}
export function alawEncode(pcm: Int16Array): Uint8Array {
  return encodeWith(ALAW_ENCODE_TABLE, pcm);
}
