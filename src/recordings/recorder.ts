/**
 * Two-channel call recording (channel 1 caller, channel 2 agent), kept as 8 kHz mu-law indexed by media time
 * (20 ms frame number) until the call ends, then written as a PCM16 WAV. Agent frames are placed where they
 * play; frames discarded by a barge-in `clear` are removed, so the recording holds what the caller heard.
 *
 * Each channel is one growing byte array, not a list of frames: a few hundred live calls otherwise keep
 * hundreds of thousands of small frame objects (and the 8 KB pool slabs their views pin) alive for the garbage
 * collector to mark over and over, and its pauses land in the calls' turn latency.
 */
import { mulawDecode, writeWav } from '../audio/index.js';

const FRAME_BYTES = 160;
/** the mu-law code of a zero sample: untouched stretches decode to silence */
const SILENCE = 0xff;
/** initial room: 10 s per channel, doubled as needed */
const INITIAL_FRAMES = 500;

class FrameTrack {
  bytes = new Uint8Array(INITIAL_FRAMES * FRAME_BYTES).fill(SILENCE);
  /** 1 where a frame was written (and not dropped since) */
  written = new Uint8Array(INITIAL_FRAMES);
  /** one past the last written frame */
  end = 0;

  put(at: number, frame: Uint8Array): void {
    if (at >= this.written.length) this.#grow(at + 1);
    const off = at * FRAME_BYTES;
    const n = Math.min(frame.length, FRAME_BYTES);
    this.bytes.set(n === frame.length ? frame : frame.subarray(0, n), off);
    if (n < FRAME_BYTES) this.bytes.fill(SILENCE, off + n, off + FRAME_BYTES);
    this.written[at] = 1;
    if (at >= this.end) this.end = at + 1;
  }

  dropFrom(from: number): void {
    if (from >= this.end) return;
    const start = Math.max(0, from);
    this.bytes.fill(SILENCE, start * FRAME_BYTES, this.end * FRAME_BYTES);
    this.written.fill(0, start, this.end);
    let end = start;
    while (end > 0 && !this.written[end - 1]) end--;
    this.end = end;
  }

  #grow(frames: number): void {
    let cap = this.written.length;
    while (cap < frames) cap *= 2;
    const bytes = new Uint8Array(cap * FRAME_BYTES).fill(SILENCE, this.bytes.length);
    bytes.set(this.bytes);
    const written = new Uint8Array(cap);
    written.set(this.written);
    this.bytes = bytes;
    this.written = written;
  }
}

export class CallRecorder {
  readonly #caller = new FrameTrack();
  readonly #agent = new FrameTrack();

  /** The caller's next 20 ms frame (inbound media arrive in order). */
  caller(frame: Uint8Array): void { this.#caller.put(this.#caller.end, frame); }

  /** An agent frame scheduled to play at frame index `at`. */
  agent(at: number, frame: Uint8Array): void { this.#agent.put(at, frame); }

  /** Drops agent frames scheduled at or after `fromFrame` (they were cleared before playing). */
  dropAgentFrom(fromFrame: number): void { this.#agent.dropFrom(fromFrame); }

  toWav(): Uint8Array {
    const frames = Math.max(this.#caller.end, this.#agent.end);
    const decode = (t: FrameTrack) => {
      const pcm = new Int16Array(frames * FRAME_BYTES);
      mulawDecode(t.bytes.subarray(0, Math.min(t.end, frames) * FRAME_BYTES), pcm.subarray(0, Math.min(t.end, frames) * FRAME_BYTES));
      return pcm;
    };
    return writeWav({ sampleRateHz: 8000, channels: [decode(this.#caller), decode(this.#agent)] });
  }
}
