/**
 * Coalesces caller audio into fewer gRPC messages: each message costs framing and (de)serialisation, and one per
 * 20 ms frame would take a core at a few hundred calls (bench/README.md, "Adapters over gRPC"). Contiguous frames are held up to
 * batchMs of audio and sent as one chunk; a gap in media time, flush() (finalize) or the timer sends early.
 * Partial transcripts lag by at most batchMs; final transcripts do not (finalize flushes first).
 */
export class AudioBatcher {
  #parts: Int16Array[] = [];
  #samples = 0;
  #startMs = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #maxSamples: number;

  constructor(private readonly sampleRateHz: number, private readonly batchMs: number,
    private readonly send: (pcm: Int16Array, atMs: number) => void) {
    this.#maxSamples = Math.max(1, Math.round((sampleRateHz * batchMs) / 1000));
  }

  push(pcm: Int16Array, atMs: number): void {
    if (this.batchMs <= 0) { this.send(pcm, atMs); return; }
    const expectedMs = this.#startMs + (this.#samples * 1000) / this.sampleRateHz;
    if (this.#samples > 0 && Math.abs(atMs - expectedMs) > 0.5) this.flush(); // not contiguous: keep media times exact
    if (this.#samples === 0) {
      this.#startMs = atMs;
      this.#timer = setTimeout(() => this.flush(), this.batchMs);
      this.#timer.unref?.();
    }
    this.#parts.push(pcm.slice()); // the caller may reuse its buffer
    this.#samples += pcm.length;
    if (this.#samples >= this.#maxSamples) this.flush();
  }

  flush(): void {
    if (this.#samples === 0) return;
    clearTimeout(this.#timer);
    const joined = this.#parts.length === 1 ? this.#parts[0] : new Int16Array(this.#samples);
    if (this.#parts.length > 1) {
      let at = 0;
      for (const p of this.#parts) { joined.set(p, at); at += p.length; }
    }
    const startMs = this.#startMs;
    this.#parts = [];
    this.#samples = 0;
    this.send(joined, startMs);
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#parts = [];
    this.#samples = 0;
  }
}
