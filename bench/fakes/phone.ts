/**
 * The far end of a fake carrier's media stream: it speaks the caller's audio in real time (one chunk per chunkMs
 * of wall time, on a shared scheduler) and plays the agent's audio as a phone would, one 20 ms frame per 20 ms,
 * echoing each mark when the audio queued before it has played (or was cleared). It counts what a caller would
 * notice: underruns (the buffer ran dry inside a reply and refilled within underrunWindowMs, with the silent gap),
 * and how late the fake itself sent (so an overloaded fake shows, instead of passing as a slow service).
 */
import { performance } from 'node:perf_hooks';
import { CallerCursor, type CallerAudio } from './caller_audio.js';

export interface LineStats {
  calls: number; active: number; callerChunks: number; callerLate: number; callerMaxLagMs: number;
  agentFrames: number; underruns: number; gapMs: number; maxGapMs: number; marksEchoed: number; clears: number;
  protocolErrors: number;
}
export const emptyLineStats = (): LineStats => ({
  calls: 0, active: 0, callerChunks: 0, callerLate: 0, callerMaxLagMs: 0, agentFrames: 0, underruns: 0, gapMs: 0,
  maxGapMs: 0, marksEchoed: 0, clears: 0, protocolErrors: 0,
});

export interface LineCodec {
  /** sends chunk number `index` (from 0) of the caller's audio, mediaMs into the stream */
  sendCaller(audio: CallerCursor, index: number, mediaMs: number): void;
  /** the audio before mark `name` has played, or was cleared (clearedByClear) */
  markReached(name: string, clearedByClear: boolean): void;
}

/** a fake sending more than this behind its schedule counts the chunk as late */
const LATE_MS = 40;
const FRAME_MS = 20;

type Queued = { frame: true } | { mark: string };

/**
 * A phone's playback of the agent's audio: one 20 ms frame per 20 ms from the first that arrives, marks reached
 * once what precedes them played (or at a clear). Underrun: the buffer ran dry and refilled within
 * underrunWindowMs without a clear between (a gap inside one reply); a later refill is the next reply.
 */
export class Playback {
  #queue: Queued[] = [];
  #frames = 0;
  #playing = false;
  #nextPlayAt = 0;
  /** when the buffer last ran dry (undefined after a clear: a new reply follows, not an underrun) */
  #dryAt?: number;

  constructor(private readonly stats: LineStats, private readonly underrunWindowMs: number,
    private readonly reached: (name: string, cleared: boolean) => void) {}

  agentFrames(frames: number, now: number): void {
    if (frames <= 0) return;
    for (let i = 0; i < frames; i++) this.#queue.push({ frame: true });
    this.#frames += frames;
    this.stats.agentFrames += frames;
    if (this.#playing) return;
    if (this.#dryAt !== undefined && now - this.#dryAt <= this.underrunWindowMs) {
      const gap = now - this.#dryAt;
      this.stats.underruns++;
      this.stats.gapMs += gap;
      this.stats.maxGapMs = Math.max(this.stats.maxGapMs, gap);
    }
    this.#playing = true;
    this.#nextPlayAt = now;
  }

  mark(name: string): void {
    this.#queue.push({ mark: name });
    if (!this.#playing) this.#echoHead();
  }

  clear(): void {
    this.stats.clears++;
    for (const q of this.#queue.splice(0)) if ('mark' in q) this.#echo(q.mark, true);
    this.#frames = 0;
    this.#playing = false;
    this.#dryAt = undefined;
  }

  pump(now: number): void {
    while (this.#playing && this.#nextPlayAt <= now) {
      this.#echoHead();
      if (!this.#frames) { this.#playing = false; this.#dryAt = this.#nextPlayAt; break; }
      this.#queue.shift();
      this.#frames--;
      this.#nextPlayAt += FRAME_MS;
    }
    if (!this.#playing) this.#echoHead();
  }

  #echoHead(): void {
    while (this.#queue.length && 'mark' in this.#queue[0]) this.#echo((this.#queue.shift() as { mark: string }).mark, false);
  }

  #echo(name: string, cleared: boolean): void {
    this.stats.marksEchoed++;
    this.reached(name, cleared);
  }
}

export class PhoneLine {
  readonly #audio: CallerCursor;
  readonly #playback: Playback;
  #t0 = performance.now();
  #sent = 0;
  #closed = false;

  constructor(private readonly codec: LineCodec, audio: CallerAudio, private readonly stats: LineStats,
    private readonly chunkMs: number, underrunWindowMs: number) {
    this.#audio = new CallerCursor(audio);
    this.#playback = new Playback(stats, underrunWindowMs, (name, cleared) => codec.markReached(name, cleared));
    stats.calls++;
    stats.active++;
    lines.add(this);
    ensureScheduler();
  }

  /** agent audio of `frames` whole 20 ms frames arrived */
  agentFrames(frames: number, now = performance.now()): void { if (!this.#closed) this.#playback.agentFrames(frames, now); }
  mark(name: string): void { if (!this.#closed) this.#playback.mark(name); }
  clear(): void { if (!this.#closed) this.#playback.clear(); }
  protocolError(): void { this.stats.protocolErrors++; }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.stats.active--;
    lines.delete(this);
  }

  pump(now: number): void {
    while (!this.#closed && this.#t0 + this.#sent * this.chunkMs <= now) {
      const lag = now - (this.#t0 + this.#sent * this.chunkMs);
      if (lag > LATE_MS) this.stats.callerLate++;
      this.stats.callerMaxLagMs = Math.max(this.stats.callerMaxLagMs, lag);
      this.stats.callerChunks++;
      this.codec.sendCaller(this.#audio, this.#sent, this.#sent * this.chunkMs);
      this.#sent++;
    }
    if (!this.#closed) this.#playback.pump(now);
  }
}

const lines = new Set<PhoneLine>();
let timer: NodeJS.Timeout | undefined;
/** one timer for every call: a 5 ms tick bounds how late a chunk or a mark echo can be */
function ensureScheduler(): void {
  if (timer) return;
  timer = setInterval(() => {
    if (!lines.size) { clearInterval(timer); timer = undefined; return; }
    const now = performance.now();
    for (const l of lines) l.pump(now);
  }, 5);
}
