/** One call's queue in the AudioPool: ops wait here until the pool sends the call's next batch. */
import type { CallAudioState } from './call_audio.js';
import { AudioPoolError } from './errors.js';
import type { AudioEvent, BargeInVerdict } from './events.js';
import { PACKED_STATE_LENGTH, packState, unpackState } from './state_codec.js';

export interface CallAudioChannel {
  readonly callId: string;
  /** One or more 20 ms mu-law frames at 8 kHz (160 bytes each); resolves with the events decided for them. */
  pushMulaw(frame: Uint8Array, agentSpeaking: boolean): Promise<AudioEvent[]>;
  /** PCM16 at the call's sample rate, a whole number of 20 ms frames (320 samples at 16 kHz). */
  pushPcm(pcm: Int16Array, agentSpeaking: boolean): Promise<AudioEvent[]>;
  /** How a pending barge-in ended (see resolveBargeIn); ordered after frames already pushed. */
  resolveBargeIn(verdict: BargeInVerdict): Promise<AudioEvent[]>;
  /** Snapshot of the state after the last completed batch (decoded on each read). */
  readonly state: Readonly<CallAudioState>;
  /** Cancels queued work; pending pushes resolve with [] (nothing is emitted after close). Idempotent. */
  close(): void;
  readonly closed: boolean;
}

/** op 0 = mu-law, 1 = PCM16 bytes, 2 = resolve (text). Audio lives in the channel's staging buffer. */
export interface PendingOp {
  op: 0 | 1 | 2;
  offset: number;
  length: number;
  agentSpeaking: boolean;
  text?: string;
  resolve: (e: AudioEvent[]) => void;
  reject: (err: Error) => void;
}

export interface ChannelHooks { ready(ch: ChannelImpl): void; closed(ch: ChannelImpl): void }

export class ChannelImpl implements CallAudioChannel {
  #queue: PendingOp[] = [];
  /** Ops of the batch in flight and their audio (kept so a crashed task can be retried). */
  inFlight: PendingOp[] | undefined;
  inFlightStage: Uint8Array = new Uint8Array(0);
  inFlightBytes = 0;
  // Frames are copied into a reusable staging buffer rather than sliced one by one: a fresh ArrayBuffer per
  // 20 ms frame is the main thread's biggest cost (and GC churn) at thousands of calls.
  #stage: Uint8Array = new Uint8Array(2048);
  #stageLen = 0;
  #spare: Uint8Array | undefined;
  #closed = false;
  /** Committed state, packed. */
  readonly packed = new Float64Array(PACKED_STATE_LENGTH);

  constructor(readonly callId: string, initial: CallAudioState, private readonly hooks: ChannelHooks) {
    packState(initial, this.packed);
  }

  get state(): Readonly<CallAudioState> { return unpackState(this.packed); }
  get closed(): boolean { return this.#closed; }

  pushMulaw(frame: Uint8Array, agentSpeaking: boolean): Promise<AudioEvent[]> {
    return this.#enqueue(0, frame, agentSpeaking);
  }
  pushPcm(pcm: Int16Array, agentSpeaking: boolean): Promise<AudioEvent[]> {
    return this.#enqueue(1, new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength), agentSpeaking);
  }
  resolveBargeIn(verdict: BargeInVerdict): Promise<AudioEvent[]> {
    return this.#enqueue(2, undefined, false, verdict);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const p of this.#queue) p.resolve([]);
    this.#queue = [];
    this.hooks.closed(this);
  }

  #enqueue(op: 0 | 1 | 2, data: Uint8Array | undefined, agentSpeaking: boolean, text?: string): Promise<AudioEvent[]> {
    if (this.#closed) return Promise.resolve([]);
    let offset = 0, length = 0;
    if (data) {
      if (op === 1 && this.#stageLen & 1) this.#stageLen++; // PCM16 must start at an even offset
      if (this.#stageLen + data.length > this.#stage.length) {
        const bigger = new Uint8Array(Math.max(2 * this.#stage.length, this.#stageLen + data.length));
        bigger.set(this.#stage.subarray(0, this.#stageLen));
        this.#stage = bigger;
      }
      this.#stage.set(data, this.#stageLen);
      offset = this.#stageLen;
      length = data.length;
      this.#stageLen += length;
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ op, offset, length, agentSpeaking, text, resolve, reject });
      if (!this.inFlight && this.#queue.length === 1) this.hooks.ready(this);
    });
  }

  /** Pool: move the queue into flight. False if there is nothing to send. */
  takeBatch(): boolean {
    if (this.inFlight || this.#closed || this.#queue.length === 0) return false;
    this.inFlight = this.#queue;
    this.#queue = [];
    // Swap staging buffers (no allocation in steady state): the filled one flies, the spare takes pushes.
    this.inFlightStage = this.#stage;
    this.inFlightBytes = this.#stageLen;
    this.#stage = this.#spare && this.#spare.length >= this.#stage.length ? this.#spare : new Uint8Array(this.#stage.length);
    this.#spare = undefined;
    this.#stageLen = 0;
    return true;
  }

  #endFlight(): PendingOp[] {
    const pend = this.inFlight ?? [];
    this.inFlight = undefined;
    this.#spare = this.inFlightStage; // recycle the staging buffer
    this.inFlightBytes = 0;
    return pend;
  }

  /** Pool: the batch came back; this call's new state is states[base ...] (ignored on error). */
  complete(states: Float64Array, base: number, events: Map<number, AudioEvent[]> | undefined, error?: string): void {
    const pend = this.#endFlight();
    if (this.#closed) { for (const p of pend) p.resolve([]); return; }
    if (error !== undefined) {
      const err = new AudioPoolError('call_failed', `audio step failed for call ${this.callId}: ${error ?? 'no result'}`);
      for (const p of pend) p.reject(err);
    } else {
      for (let i = 0; i < PACKED_STATE_LENGTH; i++) this.packed[i] = states[base + i];
      for (let i = 0; i < pend.length; i++) pend[i].resolve(events?.get(i) ?? []);
    }
    if (this.#queue.length) this.hooks.ready(this);
  }

  /** Pool: the task carrying this call died (after isolation). State is unchanged. */
  fail(err: Error): void {
    const pend = this.#endFlight();
    for (const p of pend) (this.#closed ? p.resolve([]) : p.reject(err));
    if (this.#queue.length && !this.#closed) this.hooks.ready(this);
  }
}
