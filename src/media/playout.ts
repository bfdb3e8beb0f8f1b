/**
 * Paced agent audio toward the carrier. Frames (20 ms mu-law) are sent no more than `leadFrames` ahead of a
 * virtual playhead that advances with wall time × timeScale, so a `clear` on barge-in drops little, and a mark
 * follows each sent batch: "r<reply>/e<epoch>/f<frame>" (README.md, "Playout"). A mark echoed with the
 * current epoch proves the audio up to that frame played; a stale epoch means it was cleared.
 */
export interface PlayoutSink {
  sendMedia(frame: Uint8Array): void;
  sendMark(name: string): void;
  sendClear(): void;
  /** Runs `send`; what it sends goes out in one socket write (a frame and its mark were two system calls). */
  batch?(send: () => void): void;
}

export interface PlayoutHooks {
  /** the first frame of a reply left for the carrier (wall ms, performance.now()) */
  firstFrameSent?(replyId: number, atWallMs: number): void;
  /** a frame was sent; `aheadFrames` = how far ahead of the playhead it will play */
  frameSent?(frame: Uint8Array, aheadFrames: number): void;
  /** everything queued has played (the reply is over for the caller) */
  drained?(): void;
}

import { FRAME_MS } from '../audio/index.js';

export class Playout {
  readonly #queue: Uint8Array[] = [];
  #epoch = 0;
  #reply = 0;
  /** frames of the current reply sent / confirmed played by a mark echo */
  #sent = 0;
  #confirmed = 0;
  #firstSent = false;
  /** wall time (ms) the playhead was at frame 0 of the current burst, and frames sent in this burst */
  #burstStart = 0;
  #burstSent = 0;
  #wasSpeaking = false;
  #paused = false;
  framesOut = 0;
  readonly #now: () => number;

  constructor(private readonly sink: PlayoutSink, private readonly hooks: PlayoutHooks,
    private readonly opts: { timeScale: number; leadFrames?: number; clock?: () => number }) {
    this.#now = opts.clock ?? (() => performance.now());
  }

  /** Starts a new reply (marks carry its id); returns the id. */
  beginReply(): number { this.#reply++; this.#sent = 0; this.#confirmed = 0; this.#firstSent = false; return this.#reply; }

  get replyId(): number { return this.#reply; }

  /** 20 ms mu-law frames of the current reply. */
  enqueue(frames: Uint8Array[]): void { for (const f of frames) this.#queue.push(f); }

  /** Frames of the playhead position in the current burst. */
  #playhead(nowMs: number): number {
    return Math.floor(((nowMs - this.#burstStart) * this.opts.timeScale) / FRAME_MS);
  }

  /** Whether the caller is hearing agent audio now (sent and not yet played, or waiting to be sent). */
  speaking(nowMs = this.#now()): boolean {
    return (this.#queue.length > 0 && !this.#paused) || this.#burstSent > this.#playhead(nowMs);
  }

  /**
   * Holds back what is not sent yet (the carrier plays out the little it has): a possible interruption is being
   * decided. resume() goes on from the same frame; clear() drops it.
   */
  pause(): void { this.#paused = true; }
  resume(nowMs = this.#now()): void { this.#paused = false; this.pump(nowMs); }
  get paused(): boolean { return this.#paused; }
  /** Frames queued and not paused: agent audio is still going out (an operator's voice is mixed into it). */
  get sending(): boolean { return this.#queue.length > 0 && !this.#paused; }

  /** Called on every tick: sends what the lead allows; reports drained once per burst. */
  pump(nowMs = this.#now()): void {
    // 100 ms of lead in wall time whatever the time scale: at 10x, 5 frames are 10 ms of wall time, less than
    // one late tick, and the carrier's buffer ran dry mid-reply (gaps the callee heard as the agent stopping)
    const lead = this.opts.leadFrames ?? Math.max(5, Math.ceil(5 * this.opts.timeScale));
    if (this.#queue.length && !this.#paused && this.#burstSent <= this.#playhead(nowMs)) {
      // nothing is playing: a new burst starts now
      this.#burstStart = nowMs;
      this.#burstSent = 0;
    }
    if (this.#queue.length && !this.#paused && this.#burstSent - this.#playhead(nowMs) < lead) {
      if (this.sink.batch) this.sink.batch(() => this.#sendDue(nowMs, lead));
      else this.#sendDue(nowMs, lead);
    }
    const speaking = this.speaking(nowMs);
    if (this.#wasSpeaking && !speaking) this.hooks.drained?.();
    this.#wasSpeaking = speaking;
  }

  /** Sends the frames the lead allows, then their mark. */
  #sendDue(nowMs: number, lead: number): void {
    let sentNow = 0;
    while (this.#queue.length && this.#burstSent - this.#playhead(nowMs) < lead) {
      const f = this.#queue.shift()!;
      this.sink.sendMedia(f);
      this.hooks.frameSent?.(f, this.#burstSent - this.#playhead(nowMs));
      this.#burstSent++; this.#sent++; this.framesOut++; sentNow++;
      if (!this.#firstSent) { this.#firstSent = true; this.hooks.firstFrameSent?.(this.#reply, this.#now()); }
    }
    if (sentNow) this.sink.sendMark(`r${this.#reply}/e${this.#epoch}/f${this.#sent}`);
  }

  /** A mark came back from the carrier. */
  onMark(name: string): void {
    const m = /^r(\d+)\/e(\d+)\/f(\d+)$/.exec(name);
    if (!m || Number(m[1]) !== this.#reply || Number(m[2]) !== this.#epoch) return; // another reply's, or cleared audio
    this.#confirmed = Math.max(this.#confirmed, Number(m[3]));
  }

  /** Barge-in: drop queued audio, tell the carrier to drop its buffer. Returns the ms of this reply the caller heard. */
  clear(nowMs = this.#now()): { playedMs: number; sentMs: number } {
    const unplayed = Math.max(0, this.#burstSent - this.#playhead(nowMs));
    // estimate from the playhead; a mark echo already received may prove more
    const played = Math.max(this.#confirmed, this.#sent - unplayed);
    this.#queue.length = 0;
    this.#paused = false;
    this.#epoch++;
    this.#burstSent = 0;
    this.#burstStart = nowMs;
    this.sink.sendClear();
    this.#wasSpeaking = false; // not 'drained': the reply was cut, the session knows
    return { playedMs: played * FRAME_MS, sentMs: this.#sent * FRAME_MS };
  }

  get confirmedMs(): number { return this.#confirmed * FRAME_MS; }
}
