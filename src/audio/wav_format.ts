/**
 * The `fmt ` chunk and conversion of one block (all channels of one sample instant) to mono PCM16.
 * Container width is taken from blockAlign / channels, not from bitsPerSample, because 24-bit audio in 32-bit
 * containers (arecord S24_LE) and EXTENSIBLE files with fewer valid bits are both left-justified: the top two
 * bytes of any integer container >= 16 bits are the PCM16 value.
 */
import { AudioError } from './errors.js';
import { ALAW_DECODE_TABLE, MULAW_DECODE_TABLE } from './g711.js';

export const WAVE_FORMAT = { PCM: 1, FLOAT: 3, ALAW: 6, MULAW: 7, EXTENSIBLE: 0xfffe } as const;
/** Above this a file is more likely corrupt than a real call recording. */
export const MAX_CHANNELS = 8;
export const MAX_SAMPLE_RATE_HZ = 384_000;

export interface WavFormat {
  /** Effective format code after resolving EXTENSIBLE: 1, 3, 6 or 7. */
  formatCode: number;
  channels: number;
  sampleRateHz: number;
  bitsPerSample: number;
  /** Bytes per sample instant, all channels. */
  blockAlign: number;
  /** Bytes per single-channel sample in the container. */
  containerBytes: number;
}

export function parseFmt(b: Uint8Array): WavFormat {
  if (b.length < 16) throw new AudioError('wav_malformed', `fmt chunk is ${b.length} bytes; at least 16 are required`);
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let formatCode = v.getUint16(0, true);
  const channels = v.getUint16(2, true);
  const sampleRateHz = v.getUint32(4, true);
  const blockAlign = v.getUint16(12, true);
  let bitsPerSample = v.getUint16(14, true);
  if (formatCode === WAVE_FORMAT.EXTENSIBLE) {
    const cbSize = b.length >= 18 ? v.getUint16(16, true) : 0;
    if (cbSize < 22 || b.length < 40) throw new AudioError('wav_malformed', 'WAVE_FORMAT_EXTENSIBLE fmt chunk lacks its 22-byte extension');
    const validBits = v.getUint16(18, true);
    if (validBits > 0 && validBits <= bitsPerSample) bitsPerSample = validBits;  // 0 means "same as container"
    formatCode = v.getUint16(24, true);                                          // SubFormat GUID's first 2 bytes
  }
  if (channels === 0) throw new AudioError('wav_malformed', 'fmt chunk declares 0 channels');
  if (sampleRateHz === 0) throw new AudioError('wav_malformed', 'fmt chunk declares a sample rate of 0 Hz');
  if (blockAlign === 0) throw new AudioError('wav_malformed', 'fmt chunk declares a block size of 0 bytes');
  if (channels > MAX_CHANNELS) throw new AudioError('wav_unsupported', `${channels} channels; at most ${MAX_CHANNELS} are supported`);
  if (sampleRateHz > MAX_SAMPLE_RATE_HZ) throw new AudioError('wav_unsupported', `sample rate ${sampleRateHz} Hz is above ${MAX_SAMPLE_RATE_HZ} Hz`);
  if (blockAlign % channels !== 0) throw new AudioError('wav_malformed', `block size ${blockAlign} is not a multiple of ${channels} channels`);
  const containerBytes = blockAlign / channels;
  const needBytes = Math.ceil(bitsPerSample / 8);
  switch (formatCode) {
    case WAVE_FORMAT.PCM:
      if (bitsPerSample < 8 || bitsPerSample > 32 || containerBytes > 4 || containerBytes < needBytes) {
        throw new AudioError('wav_unsupported', `PCM with ${bitsPerSample} bits in ${containerBytes}-byte containers is not supported`);
      }
      break;
    case WAVE_FORMAT.FLOAT:
      if (containerBytes !== 4 && containerBytes !== 8) {
        throw new AudioError('wav_unsupported', `float samples of ${containerBytes} bytes are not supported (4 or 8)`);
      }
      break;
    case WAVE_FORMAT.ALAW:
    case WAVE_FORMAT.MULAW:
      if (containerBytes !== 1) throw new AudioError('wav_unsupported', `G.711 with ${containerBytes}-byte samples is not supported`);
      break;
    default:
      throw new AudioError('wav_unsupported', `WAV format code 0x${formatCode.toString(16)} is not supported (PCM, float, A-law, mu-law only)`);
  }
  return { formatCode, channels, sampleRateHz, bitsPerSample, blockAlign, containerBytes };
}

function clamp16(x: number): number {
  return x > 32767 ? 32767 : x < -32768 ? -32768 : x;
}

/** One channel sample at byte offset `o` as a PCM16 value (not yet rounded for float). */
function sampleAt(fmt: WavFormat, b: Uint8Array, v: DataView, o: number): number {
  switch (fmt.formatCode) {
    case WAVE_FORMAT.MULAW: return MULAW_DECODE_TABLE[b[o]];
    case WAVE_FORMAT.ALAW: return ALAW_DECODE_TABLE[b[o]];
    case WAVE_FORMAT.FLOAT: {
      const f = fmt.containerBytes === 4 ? v.getFloat32(o, true) : v.getFloat64(o, true);
      return Number.isNaN(f) ? 0 : clamp16(Math.round(f * 32768)); // samples beyond +-1.0 are clamped
    }
    default:
      if (fmt.containerBytes === 1) return (b[o] - 128) << 8;     // 8-bit PCM is unsigned
      return v.getInt16(o + fmt.containerBytes - 2, true);        // top 16 bits of a left-justified container
  }
}

/** Converts whole blocks to mono PCM16, averaging channels. `bytes.length` must be a multiple of blockAlign. */
export function blocksToMono(fmt: WavFormat, bytes: Uint8Array): Int16Array {
  const n = bytes.length / fmt.blockAlign;
  const out = new Int16Array(n);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { channels, containerBytes, blockAlign } = fmt;
  if (channels === 1 && fmt.formatCode === WAVE_FORMAT.MULAW) {
    for (let i = 0; i < n; i++) out[i] = MULAW_DECODE_TABLE[bytes[i]];
    return out;
  }
  for (let i = 0, o = 0; i < n; i++, o += blockAlign) {
    if (channels === 1) { out[i] = sampleAt(fmt, bytes, v, o); continue; }
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += sampleAt(fmt, bytes, v, o + c * containerBytes);
    out[i] = clamp16(Math.round(sum / channels));
  }
  return out;
}
