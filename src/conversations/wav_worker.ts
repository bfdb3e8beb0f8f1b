/**
 * Decodes demo audio off the event loop: one worker thread (workers/wav_decode.ts), started on first use and let go
 * when idle, since demo audio turns are rare next to calls. The audio pool's workers take PCM, not WAV bytes, so the
 * decode and resample that used to run on the event loop run here. A full queue answers 503 (retryable).
 */
import { Piscina } from 'piscina';
import { ApiError } from '../errors.js';
import type { WavDecodeResult, WavDecodeTask } from '../../workers/wav_decode.js';

// Same extension as this module: .ts under tsx / tap's loader, .js if the tree is ever compiled.
const WORKER = new URL(`../../workers/wav_decode.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url).href;

/** Decodes waiting for the thread beyond this many answer 503: each holds its upload in memory. */
export const DECODE_QUEUE_MAX = 8;

export class WavWorker {
  #pool?: Piscina;
  #closed = false;

  async decode(wav: Uint8Array, limits: { maxBytes: number; maxDurationMs: number; minSampleRateHz: number }): Promise<WavDecodeResult> {
    if (this.#closed) throw new ApiError('unavailable', 'the service is shutting down', { retryable: true });
    this.#pool ??= new Piscina({ filename: WORKER, minThreads: 0, maxThreads: 1, idleTimeout: 60_000, maxQueue: DECODE_QUEUE_MAX });
    if (this.#pool.queueSize >= DECODE_QUEUE_MAX) {
      throw new ApiError('unavailable', 'too many audio turns are being decoded; retry shortly', { retryable: true, retryAfterSeconds: 1 });
    }
    const copy = new Uint8Array(wav); // a dedicated buffer, transferred (an upload's Buffer may share a pool block)
    const task: WavDecodeTask = { wav: copy.buffer, ...limits };
    return (await this.#pool.run(task, { transferList: [copy.buffer] })) as WavDecodeResult;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#pool?.destroy();
    this.#pool = undefined;
  }
}
