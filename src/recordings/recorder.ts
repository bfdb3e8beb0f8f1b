/**
 * Two-channel call recording (channel 1 caller, channel 2 our side: the agent, and an operator who joined the
 * call's audio, mixed as the caller heard them), 8 kHz, indexed by media time (20 ms frame number), streamed to a
 * sink as PCM16 stereo while the call runs. Agent frames are placed where they play; frames discarded by a barge-in
 * `clear` are removed, so the recording holds what the caller heard.
 *
 * Only the unsettled tail stays in memory (whole calls in memory made GC pauses that landed in turn latency: see
 * bench/README.md). A frame before the caller's current position is final on both channels: agent frames are
 * always placed at or after it, and a clear drops only from it on (src/session/shell.ts). Every BLOCK_FRAMES of
 * caller audio the settled part is interleaved and handed to the sink.
 */
import { endianness } from 'node:os';
import { PHONE_FRAME_SAMPLES } from '../audio/index.js';

const FRAME = PHONE_FRAME_SAMPLES;
/** settled audio goes to the sink in blocks of this many frames (2 s: 64 KB of PCM16 stereo) */
export const BLOCK_FRAMES = 100;
const LITTLE_ENDIAN = endianness() === 'LE';

/** Where the recording goes: blocks of interleaved PCM16 LE stereo in order, then the total. */
export interface RecordingSink {
  write(pcm: Uint8Array): void;
  /** everything was written (`dataBytes` in all); resolves to where the recording is */
  finish(dataBytes: number): Promise<string>;
}

/** One channel's frames from `base` on (earlier ones are in the sink). */
class FrameTrack {
  base = 0;
  samples = new Int16Array(2 * BLOCK_FRAMES * FRAME);
  /** 1 where a frame was written (and not dropped since), indexed from base */
  written = new Uint8Array(2 * BLOCK_FRAMES);
  /** one past the last written frame (absolute) */
  end = 0;

  /** A frame at an already settled index is ignored (the session never places one there). */
  put(at: number, frame: Int16Array): void {
    if (at < this.base) return;
    const i = at - this.base;
    if (i >= this.written.length) this.#grow(i + 1);
    const off = i * FRAME;
    const n = Math.min(frame.length, FRAME);
    this.samples.set(n === frame.length ? frame : frame.subarray(0, n), off);
    if (n < FRAME) this.samples.fill(0, off + n, off + FRAME);
    this.written[i] = 1;
    if (at >= this.end) this.end = at + 1;
  }

  dropFrom(from: number): void {
    if (from >= this.end) return;
    const start = Math.max(this.base, from) - this.base;
    const stop = this.end - this.base;
    this.samples.fill(0, start * FRAME, stop * FRAME);
    this.written.fill(0, start, stop);
    let end = start;
    while (end > 0 && !this.written[end - 1]) end--;
    this.end = this.base + end; // settled frames are in the sink already, counted by the recorder
  }

  /** Forgets frames before `to` (they went to the sink); the rest moves to the front. */
  shift(to: number): void {
    const n = Math.min(to - this.base, this.written.length);
    this.samples.copyWithin(0, n * FRAME).fill(0, this.samples.length - n * FRAME);
    this.written.copyWithin(0, n).fill(0, this.written.length - n);
    this.base = to;
  }

  #grow(frames: number): void {
    let cap = this.written.length;
    while (cap < frames) cap *= 2;
    const samples = new Int16Array(cap * FRAME);
    samples.set(this.samples);
    const written = new Uint8Array(cap);
    written.set(this.written);
    this.samples = samples;
    this.written = written;
  }
}

export class CallRecorder {
  readonly #caller = new FrameTrack();
  readonly #agent = new FrameTrack();
  /** an operator's voice (src/handoffs/operator_leg.ts): its own track, so a clear of the agent's audio keeps it */
  readonly #operator = new FrameTrack();
  #dataBytes = 0;
  #finished?: Promise<string>;

  constructor(private readonly sink: RecordingSink) {}

  /** frames before this are in the sink (both tracks shift together, so either track's base) */
  get #settled(): number { return this.#caller.base; }

  /** The caller's next 20 ms frame, PCM16 at 8 kHz (inbound media arrive in order). */
  caller(frame: Int16Array): void {
    if (this.#finished) return;
    this.#caller.put(this.#caller.end, frame);
    if (this.#caller.end - this.#settled >= BLOCK_FRAMES) this.#settle(this.#caller.end);
  }

  /** An agent frame scheduled to play at frame index `at` (at or after the caller's current frame). */
  agent(at: number, frame: Int16Array): void { if (!this.#finished) this.#agent.put(at, frame); }

  /** An operator frame sent to the caller to play at frame index `at` (mixed into channel 2). */
  operator(at: number, frame: Int16Array): void { if (!this.#finished) this.#operator.put(at, frame); }

  /** Drops agent frames scheduled at or after `fromFrame` (they were cleared before playing). */
  dropAgentFrom(fromFrame: number): void { this.#agent.dropFrom(fromFrame); }

  /** Frames held in memory now (the unsettled tail; bounded whatever the call's length). */
  get heldFrames(): number { return Math.max(this.#caller.end, this.#agent.end, this.#operator.end) - this.#settled; }

  /** The call is over: the rest goes to the sink, which completes the file. Idempotent. */
  finish(): Promise<string> {
    if (!this.#finished) {
      const end = Math.max(this.#caller.end, this.#agent.end, this.#operator.end);
      if (end > this.#settled) this.#settle(end);
      this.#finished = this.sink.finish(this.#dataBytes);
    }
    return this.#finished;
  }

  /** Frames [settled, to) of both channels as one interleaved block for the sink. */
  #settle(to: number): void {
    for (let from = this.#settled; from < to; from += BLOCK_FRAMES) {
      const frames = Math.min(BLOCK_FRAMES, to - from);
      const samples = frames * FRAME;
      const out = new Int16Array(samples * 2);
      this.#interleave(this.#caller, from, frames, out, 0);
      this.#interleave(this.#agent, from, frames, out, 1);
      if (this.#operator.end > from) this.#interleave(this.#operator, from, frames, out, 1, true);
      const bytes = new Uint8Array(out.buffer);
      if (!LITTLE_ENDIAN) Buffer.from(out.buffer).swap16();
      this.sink.write(bytes);
      this.#dataBytes += bytes.length;
    }
    this.#caller.shift(to);
    this.#agent.shift(to);
    this.#operator.shift(to);
  }

  /** Into every other sample of `out` (fresh, so zero = silence beyond the track's room); `mix` adds, clipped. */
  #interleave(track: FrameTrack, from: number, frames: number, out: Int16Array, channel: number, mix = false): void {
    const i = from - track.base;
    const n = Math.max(0, Math.min(frames, track.written.length - i)) * FRAME;
    const src = track.samples;
    const at = i * FRAME;
    if (!mix) { for (let s = 0; s < n; s++) out[2 * s + channel] = src[at + s]; return; }
    for (let s = 0; s < n; s++) out[2 * s + channel] = Math.max(-32768, Math.min(32767, out[2 * s + channel] + src[at + s]));
  }
}
