/**
 * The agent's audio on its way to the speaker: a jitter buffer of the call's 8 kHz samples, read out at the audio
 * context's rate (linear interpolation: the call is telephone audio, band-limited already), with the call's marks
 * placed between samples and echoed once the audio before them has played. Plain logic, shared by the
 * AudioWorklet player and the ScriptProcessor fallback.
 */
export const CALL_RATE_HZ = 8000;
/** what is held before playing starts (and after each underrun): jitter of the network and the server's pacing */
const PREBUFFER_MS = 80;
/** the most it holds (an agent far ahead of the speaker is dropped from the oldest), s */
const MAX_SECONDS = 30;

export class PlayoutBuffer {
  #ring = new Float32Array(CALL_RATE_HZ * MAX_SECONDS);
  /** absolute sample counts: written so far, and the read position (fractional) */
  #written = 0;
  #read = 0;
  #marks: Array<{ at: number; name: string }> = [];
  #playing = false;
  /** output samples waited while buffering, at the context rate */
  #waited = 0;
  /** ms of agent audio played, for the page's meter and the tests */
  playedMs = 0;

  push(samples: Float32Array): void {
    for (const v of samples) this.#ring[this.#written++ % this.#ring.length] = v;
    if (this.#written - this.#read > this.#ring.length) this.#read = this.#written - this.#ring.length;
  }

  mark(name: string): void { this.#marks.push({ at: this.#written, name }); }

  /** Drops what has not played; returns every pending mark, to echo. */
  clear(): string[] {
    this.#read = this.#written;
    this.#playing = false;
    return this.#marks.splice(0).map((m) => m.name);
  }

  /** Fills `out` (at `rateHz`); returns the marks whose audio has now played. */
  render(out: Float32Array, rateHz: number): string[] {
    const step = CALL_RATE_HZ / rateHz;
    const held = this.#written - this.#read;
    if (!this.#playing && held > 0) {
      this.#waited += out.length;
      // play once enough is held, or once we have waited that long (a short last sentence still plays)
      if (held * 1000 >= PREBUFFER_MS * CALL_RATE_HZ || this.#waited * 1000 >= PREBUFFER_MS * rateHz) this.#playing = true;
    }
    let i = 0;
    if (this.#playing) {
      for (; i < out.length && this.#read + 1 < this.#written; i++) {
        const base = Math.floor(this.#read);
        const frac = this.#read - base;
        const a = this.#ring[base % this.#ring.length];
        const b = this.#ring[(base + 1) % this.#ring.length];
        out[i] = a + (b - a) * frac;
        this.#read += step;
      }
      this.playedMs += (i * 1000) / rateHz;
      if (this.#read + 1 >= this.#written) { this.#read = Math.max(this.#read, this.#written); this.#playing = false; this.#waited = 0; }
    }
    out.fill(0, i);
    const done: string[] = [];
    while (this.#marks.length && this.#marks[0].at <= this.#read) done.push(this.#marks.shift()!.name);
    return done;
  }
}
