/** Whole-buffer WAV reading and writing on top of the incremental decoder. */
import { AudioError } from './errors.js';
import { WavDecoder, type WavLimits } from './wav_decoder.js';

export interface DecodedWav {
  sampleRateHz: number;
  /** Channels in the file; `pcm` is always mono (channels averaged). */
  channels: number;
  pcm: Int16Array;
  durationMs: number;
}

export function concatPcm(parts: Int16Array[]): Int16Array {
  if (parts.length === 1) return parts[0];
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Int16Array(n);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

/** Reads a complete WAV file. Throws AudioError with a stable `code` on anything it cannot use. */
export function readWav(bytes: Uint8Array, limits: WavLimits = {}): DecodedWav {
  if (limits.maxBytes !== undefined && bytes.length > limits.maxBytes) {
    throw new AudioError('wav_too_large', `input of ${bytes.length} bytes is larger than the ${limits.maxBytes}-byte limit`);
  }
  const dec = new WavDecoder(limits);
  const parts = dec.write(bytes);
  parts.push(...dec.flush());
  const fmt = dec.format!;
  const pcm = concatPcm(parts);
  if (pcm.length === 0) throw new AudioError('audio_empty', 'the data chunk holds no complete sample');
  return { sampleRateHz: fmt.sampleRateHz, channels: fmt.channels, pcm, durationMs: (pcm.length * 1000) / fmt.sampleRateHz };
}

/** Bytes of the canonical PCM WAV header (RIFF, fmt, data chunk header) written by wavHeader. */
export const WAV_HEADER_BYTES = 44;

/**
 * The 44-byte header of a PCM16 WAV whose data chunk holds `dataBytes` (written first with the final size by
 * writeWav, or patched in at the end by a writer that streams the samples to a file).
 */
export function wavHeader(opts: { sampleRateHz: number; channels: number; dataBytes: number }, out = new Uint8Array(WAV_HEADER_BYTES)): Uint8Array {
  const { sampleRateHz, channels: nch, dataBytes } = opts;
  if (nch < 1 || nch > 8) throw new RangeError(`wavHeader: 1..8 channels, got ${nch}`);
  if (dataBytes > 0xffffffff - 36) throw new RangeError('wavHeader: data too large for a RIFF file');
  const v = new DataView(out.buffer, out.byteOffset, WAV_HEADER_BYTES);
  const ascii = (o: number, s: string) => { for (let i = 0; i < 4; i++) out[o + i] = s.charCodeAt(i); };
  ascii(0, 'RIFF'); v.setUint32(4, 36 + dataBytes, true); ascii(8, 'WAVE');
  ascii(12, 'fmt '); v.setUint32(16, 16, true);
  v.setUint16(20, 1, true); v.setUint16(22, nch, true);
  v.setUint32(24, sampleRateHz, true); v.setUint32(28, sampleRateHz * nch * 2, true);
  v.setUint16(32, nch * 2, true); v.setUint16(34, 16, true);
  ascii(36, 'data'); v.setUint32(40, dataBytes, true);
  return out;
}

/** Writes PCM16 little-endian WAV; channels are interleaved (e.g. [caller, agent]); shorter ones are zero-padded. */
export function writeWav(opts: { sampleRateHz: number; channels: Int16Array[] }): Uint8Array {
  const { sampleRateHz, channels } = opts;
  const nch = channels.length;
  if (nch < 1 || nch > 8) throw new RangeError(`writeWav: 1..8 channels, got ${nch}`);
  const frames = Math.max(...channels.map((c) => c.length));
  const dataBytes = frames * nch * 2;
  const out = new Uint8Array(44 + dataBytes);
  const v = new DataView(out.buffer);
  wavHeader({ sampleRateHz, channels: nch, dataBytes }, out);
  for (let c = 0; c < nch; c++) {
    const ch = channels[c];
    for (let i = 0; i < ch.length; i++) v.setInt16(44 + (i * nch + c) * 2, ch[i], true);
  }
  return out;
}
