/**
 * ITU-T G.711 mu-law encoding for the fakes' audio, written from the standard (bias 0x84, clip 32635, segment
 * search, inverted bits) rather than taken from the service, so a fake never shares our codec's mistakes.
 */
export function mulawByte(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  let m = Math.min(Math.abs(sample), 32635) + 0x84;
  let exponent = 7;
  for (let mask = 0x4000; (m & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (m >> (exponent + 3)) & 0x0f;
  m = ~(sign | (exponent << 4) | mantissa) & 0xff;
  return m;
}

export function mulawBytes(pcm: Int16Array): Uint8Array {
  const out = new Uint8Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = mulawByte(pcm[i]);
  return out;
}

export function pcm16leBytes(pcm: Int16Array): Uint8Array {
  const out = new Uint8Array(pcm.length * 2);
  const v = new DataView(out.buffer);
  for (let i = 0; i < pcm.length; i++) v.setInt16(i * 2, pcm[i], true);
  return out;
}

/** A test voice: a 440 Hz tone, 60 ms per character, at the given rate (what a fake says when told nothing else). */
export function toneVoice(text: string, rateHz: number): Int16Array {
  const n = Math.round((text.length * 60 * rateHz) / 1000);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rateHz));
  return out;
}
