/**
 * AudioPool: runs the per-call detector steps on a Piscina worker pool, batched across calls.
 *
 *   channel.pushMulaw(frame) --queue--> ready set --(a worker is idle: flush on the next turn of the event loop;
 *   all busy: wait for one to finish)--> one task with every ready call's queued frames --> worker --> events
 *
 * One piscina hop costs as much as hundreds of frames of detection (bench/README.md), so frames are never sent alone
 * under load; under light load a frame still leaves within one event-loop turn. Each call has at most one
 * batch in flight, so its state (passed in and out, never kept in the worker) stays consistent.
 * A failing call is isolated: a task that dies is retried one call per task, and only the failing call's
 * pushes reject (with AudioPoolError); its state stays as before the failed batch.
 */
import { Piscina } from 'piscina';
import type { AnalyzeOptions, AnalyzeResult } from './analyze.js';
import { createCallAudioState, type CallAudioSettings } from './call_audio.js';
import type { AudioEvent } from './events.js';
import { AudioPoolError } from './errors.js';
import { ChannelImpl, type CallAudioChannel } from './pool_channel.js';
import { OP_RESOLVE, OP_WORDS, type AudioTask, type AudioTaskResult, type CallBatch } from '../../workers/audio_step.js';
import { PACKED_STATE_LENGTH } from './state_codec.js';

export type { CallAudioChannel } from './pool_channel.js';
export { AudioPoolError } from './errors.js';

export interface AudioPoolOptions {
  /** Worker threads (default: 2, this machine's core count). */
  threads?: number;
  /** Most calls per task; larger ready sets are split across idle workers. */
  maxCallsPerTask?: number;
  /** Worker module (tests substitute a wrapper); default workers/audio_step.ts. */
  filename?: string;
}

export interface AudioPoolStats { tasks: number; batchItems: number; failedTasks: number; maxCallsInTask: number }

// Same extension as this module: .ts under tsx / tap's loader, .js if the tree is ever compiled.
const DEFAULT_WORKER = new URL(`../../workers/audio_step.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url).href;

export class AudioPool {
  readonly threads: number;
  readonly #piscina: Piscina;
  readonly #maxCalls: number;
  readonly #ready = new Set<ChannelImpl>();
  readonly #channels = new Set<ChannelImpl>();
  #busy = 0;
  #flushQueued = false;
  #closed = false;
  readonly stats: AudioPoolStats = { tasks: 0, batchItems: 0, failedTasks: 0, maxCallsInTask: 0 };

  constructor(opts: AudioPoolOptions = {}) {
    this.threads = opts.threads ?? 2;
    this.#maxCalls = opts.maxCallsPerTask ?? 2000;
    this.#piscina = new Piscina({
      filename: opts.filename ?? DEFAULT_WORKER,
      minThreads: this.threads, maxThreads: this.threads,
      idleTimeout: 60_000, // piscina's default is "immediate": threads would be torn down between bursts
      concurrentTasksPerWorker: 1,
    });
  }

  openCall(callId: string, settings: CallAudioSettings): CallAudioChannel {
    if (this.#closed) throw new AudioPoolError('pool_closed', 'the audio pool is closed');
    const ch = new ChannelImpl(callId, createCallAudioState(settings), {
      ready: (c) => this.#markReady(c),
      closed: (c) => { this.#ready.delete(c); this.#channels.delete(c); },
    });
    this.#channels.add(ch);
    return ch;
  }

  /** Whole-file analysis on a worker (conversation demo audio turns, CLI-like use). */
  async analyze(pcm: Int16Array, sampleRateHz: number, options: AnalyzeOptions): Promise<{ events: AudioEvent[]; segments: AnalyzeResult['segments'] }> {
    if (this.#closed) throw new AudioPoolError('pool_closed', 'the audio pool is closed');
    const copy = pcm.slice(); // dedicated buffer, transferred
    this.#busy++;
    try {
      const res = (await this.#piscina.run({ kind: 'analyze', pcm: copy.buffer, sampleRateHz, options } satisfies AudioTask,
        { transferList: [copy.buffer] })) as AudioTaskResult;
      if (res.kind !== 'analyze') throw new AudioPoolError('task_failed', 'unexpected worker result');
      return { events: res.result.events, segments: res.result.segments };
    } finally {
      this.#busy--;
      this.#flush();
    }
  }

  /**
   * Loads the worker module on every thread. A cold thread compiles the worker first (hundreds of ms, seconds
   * under a TypeScript loader), which would otherwise land on the first call's first frames as a stall.
   */
  async warm(): Promise<void> {
    const tiny: AnalyzeOptions = { turnDetectionTimeoutMs: 800, interruptionSensitivity: 0.5 };
    await Promise.all(Array.from({ length: this.threads }, () => this.analyze(new Int16Array(160), 8000, tiny)));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const ch of [...this.#channels]) ch.close();
    await this.#piscina.destroy();
  }

  #markReady(ch: ChannelImpl): void {
    if (this.#closed) return;
    this.#ready.add(ch);
    if (this.#busy < this.threads && !this.#flushQueued) {
      this.#flushQueued = true;
      // Next event-loop turn: frames pushed in the same tick (many calls' packets) share one task.
      setImmediate(() => { this.#flushQueued = false; this.#flush(); });
    }
  }

  #flush(): void {
    while (!this.#closed && this.#ready.size > 0 && this.#busy < this.threads) {
      const idle = this.threads - this.#busy;
      const take = Math.min(this.#maxCalls, Math.ceil(this.#ready.size / idle));
      const batch: ChannelImpl[] = [];
      for (const ch of this.#ready) {
        this.#ready.delete(ch);
        if (ch.takeBatch()) batch.push(ch);
        if (batch.length >= take) break;
      }
      if (batch.length) void this.#runBatch(batch, false);
    }
  }

  async #runBatch(batch: ChannelImpl[], isolated: boolean): Promise<void> {
    this.#busy++;
    const task = buildBatch(batch);
    this.stats.tasks++;
    this.stats.batchItems += batch.length;
    this.stats.maxCallsInTask = Math.max(this.stats.maxCallsInTask, batch.length);
    let res: AudioTaskResult | undefined;
    let failure: unknown;
    try {
      res = (await this.#piscina.run(task, {
        transferList: [task.states.buffer, task.callOps.buffer, task.ops.buffer, task.audio.buffer] as ArrayBuffer[],
      })) as AudioTaskResult;
    } catch (err) {
      failure = err;
      this.stats.failedTasks++;
    }
    this.#busy--;
    if (res?.kind === 'batch') {
      const byCall = new Map<number, Map<number, AudioEvent[]>>();
      for (const e of res.events) {
        let m = byCall.get(e.call);
        if (!m) byCall.set(e.call, (m = new Map()));
        m.set(e.op, e.events);
      }
      const errors = new Map(res.errors.map((e) => [e.call, e.message]));
      batch.forEach((ch, i) => {
        const err = errors.get(i);
        ch.complete(res.states, i * PACKED_STATE_LENGTH, byCall.get(i), err);
      });
    } else if (!isolated && batch.length > 1 && !this.#closed) {
      for (const ch of batch) void this.#runBatch([ch], true); // find the call that kills the task
    } else {
      const msg = failure instanceof Error ? failure.message : 'worker task failed';
      for (const ch of batch) ch.fail(new AudioPoolError('task_failed', msg));
    }
    this.#flush();
  }
}

/** Packs the in-flight ops of every channel into one transferable batch. */
function buildBatch(batch: ChannelImpl[]): CallBatch {
  let nOps = 0, bytes = 0;
  for (const ch of batch) { nOps += ch.inFlight!.length; bytes += ch.inFlightBytes + 1; }
  const states = new Float64Array(batch.length * PACKED_STATE_LENGTH);
  const callOps = new Int32Array(batch.length * 2);
  const ops = new Int32Array(Math.max(1, nOps * OP_WORDS));
  const audio = new Uint8Array(Math.max(2, bytes + 1));
  const texts: string[] = [];
  let op = 0, off = 0;
  batch.forEach((ch, i) => {
    states.set(ch.packed, i * PACKED_STATE_LENGTH);
    callOps[i * 2] = op;
    callOps[i * 2 + 1] = ch.inFlight!.length;
    off += off & 1; // the call's block starts even, so its PCM16 ops (even within the block) stay aligned
    if (ch.inFlightBytes) audio.set(ch.inFlightStage.subarray(0, ch.inFlightBytes), off);
    for (const p of ch.inFlight!) {
      const o = op++ * OP_WORDS;
      ops[o] = p.op;
      if (p.op === OP_RESOLVE) { ops[o + 3] = texts.push(p.text!) - 1; continue; }
      ops[o + 1] = off + p.offset; ops[o + 2] = p.length; ops[o + 3] = p.agentSpeaking ? 1 : 0;
    }
    off += ch.inFlightBytes;
  });
  return { kind: 'batch', calls: batch.length, states, callOps, ops, audio, texts };
}
