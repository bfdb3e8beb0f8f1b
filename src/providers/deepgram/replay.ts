/**
 * The caller audio Deepgram has not yet covered with a final result, kept so a socket that drops mid-call can be
 * replaced without losing words: the new socket is sent this audio first. Bounded: past maxMs the oldest audio
 * goes (counted in droppedMs), since a call must not grow memory while its speech socket is down.
 */
export interface AudioChunk { atMs: number; durMs: number; bytes: Uint8Array }

export class ReplayBuffer {
  #chunks: AudioChunk[] = [];
  #ms = 0;
  /** audio that fell off the front before it was covered (lost for recognition if the socket drops) */
  droppedMs = 0;

  constructor(private readonly maxMs: number) {}

  push(chunk: AudioChunk): void {
    this.#chunks.push(chunk);
    this.#ms += chunk.durMs;
    while (this.#ms > this.maxMs && this.#chunks.length > 1) {
      const old = this.#chunks.shift()!;
      this.#ms -= old.durMs;
      this.droppedMs += old.durMs;
    }
  }

  /** A final result covers audio up to this media time: what ends by then is no longer needed. */
  coveredUntil(mediaMs: number): void {
    // a chunk ending within 1 ms of the boundary is covered (results are in seconds, frames in ms)
    while (this.#chunks.length && this.#chunks[0].atMs + this.#chunks[0].durMs <= mediaMs + 1) {
      this.#ms -= this.#chunks.shift()!.durMs;
    }
  }

  get chunks(): readonly AudioChunk[] { return this.#chunks; }
  get durationMs(): number { return this.#ms; }
  clear(): void { this.#chunks = []; this.#ms = 0; }
}
