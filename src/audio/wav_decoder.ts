/**
 * Incremental WAV decoder: write(chunk) -> mono PCM16 pieces, flush() at end of input.
 * Survives input split at any byte offset (header fields are gathered in a small buffer; audio is converted in
 * whole blocks and a partial block is carried over). Never allocates more than the fmt chunk (capped) plus
 * one chunk's worth of output, so a hostile size field cannot cause a huge allocation or a hang.
 *
 * Sizes: a data size of 0 or 0xFFFFFFFF (streaming placeholders from ffmpeg, libsndfile, TTS APIs) means "to
 * end of input", and so does any declared size that runs past the end. Chunks after `data` are ignored.
 */
import { AudioError } from './errors.js';
import { blocksToMono, parseFmt, type WavFormat } from './wav_format.js';

/** A fmt chunk bigger than this is corrupt (EXTENSIBLE is 40 bytes; generous room for odd writers). */
const MAX_FMT_BYTES = 4096;

export interface WavLimits {
  /** Reject input once it holds more than this much audio (ms). */
  maxDurationMs?: number;
  /** Reject input larger than this many bytes. */
  maxBytes?: number;
}

type ParseState = 'riff' | 'chunk_header' | 'fmt_body' | 'skip' | 'data' | 'after_data';

export class WavDecoder {
  #state: ParseState = 'riff';
  #need = 12;                        // bytes to gather in #hdr for the current header state
  #hdr = new Uint8Array(12);
  #have = 0;
  #skip = 0;                         // bytes left to skip ('skip') or data bytes left ('data'; Infinity = to EOF)
  #padAfterFmt = 0;
  #fmt: WavFormat | undefined;
  #carry = new Uint8Array(0);        // partial block carried between writes
  #bytesIn = 0;
  #samplesOut = 0;
  #sawData = false;
  #error: AudioError | undefined;

  constructor(private readonly limits: WavLimits = {}) {}

  /** The format, once the fmt chunk has been read. */
  get format(): WavFormat | undefined { return this.#fmt; }
  /** Mono samples produced so far. */
  get samplesOut(): number { return this.#samplesOut; }

  write(chunk: Uint8Array): Int16Array[] {
    if (this.#error) throw this.#error;
    try {
      return this.#write(chunk);
    } catch (err) {
      if (err instanceof AudioError) this.#error = err;
      throw err;
    }
  }

  /** End of input: returns nothing more (a trailing partial block is dropped) or throws if no audio was found. */
  flush(): Int16Array[] {
    if (this.#error) throw this.#error;
    if (!this.#sawData) {
      const msg = this.#bytesIn === 0 ? 'input is empty' : `input ended at byte ${this.#bytesIn} before the data chunk`;
      this.#error = new AudioError(this.#bytesIn === 0 ? 'audio_empty' : 'wav_truncated', msg);
      throw this.#error;
    }
    return [];
  }

  #write(chunk: Uint8Array): Int16Array[] {
    this.#bytesIn += chunk.length;
    const maxBytes = this.limits.maxBytes;
    if (maxBytes !== undefined && this.#bytesIn > maxBytes) {
      throw new AudioError('wav_too_large', `input is larger than the ${maxBytes}-byte limit`);
    }
    const out: Int16Array[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (this.#state === 'data') {
        const take = Math.min(this.#skip, chunk.length - i);
        const pcm = this.#audio(chunk.subarray(i, i + take));
        if (pcm.length) out.push(pcm);
        i += take;
        this.#skip -= take;
        if (this.#skip === 0) this.#state = 'after_data';
        continue;
      }
      if (this.#state === 'after_data') break;
      if (this.#state === 'skip') {
        const take = Math.min(this.#skip, chunk.length - i);
        i += take;
        this.#skip -= take;
        if (this.#skip === 0) this.#expectChunkHeader();
        continue;
      }
      const take = Math.min(this.#need - this.#have, chunk.length - i);
      this.#hdr.set(chunk.subarray(i, i + take), this.#have);
      this.#have += take;
      i += take;
      if (this.#have === this.#need) this.#header();
    }
    return out;
  }

  #expectChunkHeader(): void {
    this.#state = 'chunk_header';
    this.#need = 8;
    this.#have = 0;
  }

  /** A complete header piece is in #hdr: decide the next state. All header transitions are here. */
  #header(): void {
    const h = this.#hdr;
    const v = new DataView(h.buffer, 0, this.#need);
    const id = String.fromCharCode(h[0], h[1], h[2], h[3]);
    switch (this.#state) {
      case 'riff': {
        const form = String.fromCharCode(h[8], h[9], h[10], h[11]);
        if (id === 'RIFX') throw new AudioError('wav_unsupported', 'big-endian RIFX files are not supported');
        if ((id !== 'RIFF' && id !== 'RF64' && id !== 'BW64') || form !== 'WAVE') {
          throw new AudioError('wav_malformed', 'not a RIFF/WAVE file');
        }
        this.#expectChunkHeader();  // the RIFF size is ignored: placeholders are common and EOF is the truth
        return;
      }
      case 'chunk_header': {
        const size = v.getUint32(4, true);
        if (id === 'fmt ') {
          if (size > MAX_FMT_BYTES) throw new AudioError('wav_malformed', `fmt chunk of ${size} bytes is implausibly large`);
          if (size < 16) throw new AudioError('wav_malformed', `fmt chunk is ${size} bytes; at least 16 are required`);
          this.#padAfterFmt = size & 1;
          this.#state = 'fmt_body';
          this.#need = size;
          this.#have = 0;
          if (this.#hdr.length < size) this.#hdr = new Uint8Array(size);
          return;
        }
        if (id === 'data') {
          if (!this.#fmt) throw new AudioError('wav_malformed', 'data chunk comes before the fmt chunk');
          this.#sawData = true;
          this.#state = 'data';
          this.#skip = size === 0 || size === 0xffffffff ? Infinity : size;
          return;
        }
        this.#skipBytes(size + (size & 1));  // unknown chunk (LIST, fact, JUNK, bext, ds64, ...) and its pad byte
        return;
      }
      case 'fmt_body':
        this.#fmt = parseFmt(this.#hdr.subarray(0, this.#need));
        this.#hdr = new Uint8Array(12);
        this.#skipBytes(this.#padAfterFmt);
        return;
      default:
        throw new Error(`unreachable parse state ${this.#state}`);
    }
  }

  #skipBytes(n: number): void {
    if (n === 0) { this.#expectChunkHeader(); return; }
    this.#state = 'skip';
    this.#skip = n;
  }

  #audio(bytes: Uint8Array): Int16Array {
    const fmt = this.#fmt!;
    let buf = bytes;
    if (this.#carry.length) {
      buf = new Uint8Array(this.#carry.length + bytes.length);
      buf.set(this.#carry);
      buf.set(bytes, this.#carry.length);
    }
    const whole = buf.length - (buf.length % fmt.blockAlign);
    this.#carry = buf.slice(whole);
    const pcm = blocksToMono(fmt, buf.subarray(0, whole));
    this.#samplesOut += pcm.length;
    const maxMs = this.limits.maxDurationMs;
    if (maxMs !== undefined && (this.#samplesOut * 1000) / fmt.sampleRateHz > maxMs) {
      throw new AudioError('audio_too_long', `audio is longer than the ${maxMs} ms limit`);
    }
    return pcm;
  }
}
