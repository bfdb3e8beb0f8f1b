/**
 * SimVoice decoder: PCM16 -> text, incremental (write(chunk) / finish()) and tolerant of any chunk split, any
 * start offset (it keeps its own 10 ms block grid, no alignment needed), mu-law round trips and level changes.
 *
 * Per 10 ms block it measures the 16 tone bins with Goertzel. A block counts as a symbol when the strongest tone of
 * each group holds a clear share of the block energy and dominates its group; a symbol is accepted after 3
 * identical blocks in a row (a 70 ms symbol gives at least 6 clean blocks; the one block straddling two symbols
 * is never repeated). 3+ blocks without a symbol inside an utterance is a word space; 400 ms ends the utterance.
 * Text outside START..END is ignored, so real speech (which never holds two pure tones for 30 ms) decodes as ''.
 */
import { SYM_END, SYM_REPEAT, SYM_SHIFT, SYM_START, TONES_A_HZ, TONES_B_HZ, charOfSymbol, symbolFromToneIndexes } from './alphabet.js';

const BLOCK_MS = 10;
const MIN_RUN_BLOCKS = 3;
const SPACE_BLOCKS = 3;
const UTTERANCE_END_BLOCKS = 40;
/** below this RMS (-56 dBFS) a block is silence and skips the tone filters (mu-law idle noise is < 10) */
const SILENCE_RMS = 50;
/** the winning tone must hold this share of the block energy (SimVoice gives ~0.4) */
const MIN_TONE_SHARE = 0.12;
/** … and be this many times stronger than the runner-up of its group */
const MIN_DOMINANCE = 4;

export interface DecodedWord { text: string; startMs: number; endMs: number }

export class SimVoiceDecoder {
  readonly blockSamples: number;
  #coeffA: number[];
  #coeffB: number[];
  #block: Float64Array;
  #fill = 0;
  /** media time of the next sample written, ms */
  #cursorMs = 0;
  #blockStartMs = 0;
  // symbol run tracking
  #runSymbol = -1;
  #runLength = 0;
  #runStartMs = 0;
  #quietBlocks = 0;
  // utterance state
  #inUtterance = false;
  #shift = false;
  #lastChar = '';
  #spacePending = false;
  #text = '';
  /** a SimVoice start symbol was heard since the last take (the audio carries the code, decoded or not yet) */
  #sawCode = false;
  #startMs = -1;
  #endMs = -1;
  #wordListeners: Array<(soFar: DecodedWord) => void> = [];

  constructor(readonly sampleRateHz = 8000) {
    if (sampleRateHz % 100 !== 0) throw new RangeError(`SimVoice needs a sample rate divisible by 100 Hz, got ${sampleRateHz}`);
    this.blockSamples = (sampleRateHz * BLOCK_MS) / 1000;
    const coeff = (hz: number) => 2 * Math.cos((2 * Math.PI * hz) / sampleRateHz);
    this.#coeffA = TONES_A_HZ.map(coeff);
    this.#coeffB = TONES_B_HZ.map(coeff);
    this.#block = new Float64Array(this.blockSamples);
  }

  /** Called with the text so far each time a word completes (for partial transcripts). */
  onWord(listener: (soFar: DecodedWord) => void): void { this.#wordListeners.push(listener); }

  /** Feeds samples; `atMs` (media time of pcm[0]) re-anchors the clock, otherwise time continues. */
  write(pcm: Int16Array, atMs?: number): void {
    if (atMs !== undefined) this.#cursorMs = atMs;
    const msPerSample = 1000 / this.sampleRateHz;
    for (let i = 0; i < pcm.length;) {
      if (this.#fill === 0) this.#blockStartMs = this.#cursorMs + i * msPerSample;
      const take = Math.min(this.blockSamples - this.#fill, pcm.length - i);
      this.#block.set(pcm.subarray(i, i + take), this.#fill);
      this.#fill += take;
      i += take;
      if (this.#fill === this.blockSamples) { this.#processBlock(this.#blockStartMs); this.#fill = 0; }
    }
    this.#cursorMs += pcm.length * msPerSample;
  }

  /** Whether the audio since the last take carried SimVoice (a start symbol), even if no word is complete yet. */
  get carriesCode(): boolean { return this.#sawCode || this.#inUtterance; }

  /** Text decoded since the last take, with its media time span; resets the text (not the utterance state). */
  take(): DecodedWord {
    this.#sawCode = false;
    const out = {
      text: this.#text.trim(),
      startMs: this.#startMs < 0 ? this.#cursorMs : this.#startMs,
      endMs: this.#endMs < 0 ? this.#cursorMs : this.#endMs,
    };
    this.#text = '';
    this.#startMs = this.#endMs = -1;
    this.#spacePending = false;
    return out;
  }

  /** Ends the input: a partial last block is zero-padded and the current utterance closed. */
  finish(): DecodedWord {
    if (this.#fill > 0) {
      this.#block.fill(0, this.#fill);
      this.#processBlock(this.#blockStartMs);
      this.#fill = 0;
    }
    this.#inUtterance = false;
    return this.take();
  }

  #processBlock(startMs: number): void {
    const symbol = this.#classify();
    if (symbol < 0) {
      this.#runSymbol = -1;
      this.#runLength = 0;
      this.#quietBlocks++;
      if (this.#inUtterance && this.#quietBlocks === SPACE_BLOCKS) this.#wordEnded();
      if (this.#inUtterance && this.#quietBlocks >= UTTERANCE_END_BLOCKS) this.#inUtterance = false;
      return;
    }
    this.#quietBlocks = 0;
    if (symbol !== this.#runSymbol) { this.#runSymbol = symbol; this.#runLength = 0; this.#runStartMs = startMs; }
    this.#runLength++;
    if (this.#runLength === MIN_RUN_BLOCKS) this.#accept(symbol, this.#runStartMs);
    if (this.#runLength >= MIN_RUN_BLOCKS && this.#inUtterance) this.#endMs = startMs + BLOCK_MS;
  }

  #accept(symbol: number, atMs: number): void {
    if (symbol === SYM_START) {
      this.#sawCode = true;
      if (this.#inUtterance) this.#wordEnded();
      this.#inUtterance = true;
      this.#shift = false;
      this.#lastChar = '';
      if (this.#text) this.#spacePending = true;
      return;
    }
    if (!this.#inUtterance) return;
    if (symbol === SYM_END) { this.#inUtterance = false; this.#wordEnded(); return; }
    if (symbol === SYM_SHIFT) { this.#shift = true; return; }
    const ch = symbol === SYM_REPEAT ? this.#lastChar : charOfSymbol(symbol);
    if (!ch) return;
    this.#lastChar = ch.toLowerCase();
    if (this.#spacePending && this.#text) this.#text += ' ';
    this.#spacePending = false;
    if (this.#startMs < 0) this.#startMs = atMs;
    this.#text += this.#shift ? ch.toUpperCase() : ch;
    this.#shift = false;
  }

  #wordEnded(): void {
    if (!this.#text || this.#spacePending) return;
    this.#spacePending = true;
    const soFar = { text: this.#text, startMs: this.#startMs, endMs: this.#endMs };
    for (const l of this.#wordListeners) l(soFar);
  }

  /** Returns the symbol carried by the current block, or -1 (silence, speech, noise, symbol boundary). */
  #classify(): number {
    const x = this.#block;
    const n = x.length;
    let energy = 0;
    for (let i = 0; i < n; i++) energy += x[i] * x[i];
    if (energy / n < SILENCE_RMS * SILENCE_RMS) return -1;
    const a = this.#strongest(this.#coeffA, energy);
    if (a < 0) return -1;
    const b = this.#strongest(this.#coeffB, energy);
    if (b < 0) return -1;
    return symbolFromToneIndexes(a, b);
  }

  #strongest(coeffs: number[], energy: number): number {
    const x = this.#block;
    const n = x.length;
    let best = -1, bestP = 0, secondP = 0;
    for (let k = 0; k < coeffs.length; k++) {
      const c = coeffs[k];
      let s1 = 0, s2 = 0;
      for (let i = 0; i < n; i++) { const s = x[i] + c * s1 - s2; s2 = s1; s1 = s; }
      const p = s1 * s1 + s2 * s2 - c * s1 * s2;
      if (p > bestP) { secondP = bestP; bestP = p; best = k; } else if (p > secondP) secondP = p;
    }
    // share of block energy: a pure whole-cycle tone of amplitude A gives |X|^2 = (nA/2)^2 and energy nA^2/2
    const share = (2 * bestP) / (n * energy);
    return share >= MIN_TONE_SHARE && bestP >= MIN_DOMINANCE * secondP ? best : -1;
  }
}

/** One-shot decode of a whole buffer. */
export function decodeSimVoice(pcm: Int16Array, sampleRateHz = 8000): string {
  const d = new SimVoiceDecoder(sampleRateHz);
  d.write(pcm, 0);
  return d.finish().text;
}
