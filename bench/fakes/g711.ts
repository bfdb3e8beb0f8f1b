/** G.711 mu-law (ITU-T G.711) for the fakes, written from the standard so the fakes share no code with the service. */
const BIAS = 0x84;

export function mulawToLinear(u: number): number {
  const x = ~u & 0xff;
  const t = (((x & 0x0f) << 3) + BIAS) << ((x & 0x70) >> 4);
  return x & 0x80 ? BIAS - t : t - BIAS;
}

export function linearToMulaw(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  let s = Math.min(32635, Math.abs(sample)) + BIAS;
  let exp = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exp > 0; mask >>= 1) exp--;
  const mantissa = (s >> (exp + 3)) & 0x0f;
  s = ~(sign | (exp << 4) | mantissa) & 0xff;
  return s;
}

const DECODE = Int16Array.from({ length: 256 }, (_, u) => mulawToLinear(u));
export const MULAW_SILENCE = 0xff;

export function decodeMulaw(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = DECODE[bytes[i]];
  return out;
}

/** RMS of a block, in dBFS (-Infinity for digital silence) */
export function rmsDbfs(pcm: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < pcm.length; i++) sum += pcm[i] * pcm[i];
  return 10 * Math.log10(sum / Math.max(1, pcm.length) / (32768 * 32768));
}
