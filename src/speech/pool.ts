/**
 * The speech pool: worker threads where the offline voice renders and the offline ears recognise, so neither runs
 * on the event loop. One thread for each, started on first use (a service that uses live providers never starts
 * them) and let go when idle: the ears keep one loaded decoder, so its load (a second or more, cold) is paid once
 * per thread, and `warmEars()` pays it outside any turn's deadline.
 */
import { Piscina } from 'piscina';
import type { SpeechResult, SpeechTask } from '../../workers/speech.js';
import type { ListenHint } from '../adapters/types.js';
import { LIVE_FIRST, LiveFirstQueue } from './live_first_queue.js';

// Same extension as this module: .ts under tsx / tap's loader, .js if the tree is ever compiled.
const WORKER = new URL(`../../workers/speech.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url).href;

let idleMs = 120_000;
const pools: Partial<Record<SpeechTask['kind'], Piscina>> = {};
let earsReady: Promise<unknown> | undefined;
let voiceReady: Promise<unknown> | undefined;

/**
 * Runs a speech task on its thread; on `signal` (a barge-in, a hang-up, a deadline) the caller stops waiting and the
 * task's result is dropped. The signal is not Piscina's: Piscina stops a running task by ending its thread, and
 * ending a thread inside WebAssembly crashed the process (SIGSEGV in a worker, seen in test runs).
 */
export async function runSpeech<K extends SpeechTask['kind']>(task: SpeechTask & { kind: K }, signal?: AbortSignal,
  transfer: ArrayBuffer[] = []): Promise<SpeechResult & { kind: K }> {
  signal?.throwIfAborted();
  const thread = task.kind === 'listen' ? 'hear' : task.kind; // live turns are the ears' too
  const pool = (pools[thread] ??= startPool(thread));
  const run = pool.run(task.kind === 'listen' ? { ...task, ...LIVE_FIRST } : task, { transferList: transfer }) as Promise<SpeechResult & { kind: K }>;
  if (!signal) return run;
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    run.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function startPool(kind: SpeechTask['kind']): Piscina {
  const pool = new Piscina({ filename: WORKER, minThreads: 0, maxThreads: 1, idleTimeout: idleMs, taskQueue: new LiveFirstQueue() });
  // an idle thread let go takes its loaded models with it: the next warm-up loads them again
  pool.on('workerDestroy', () => {
    if (pools[kind] !== pool) return;
    if (kind === 'hear') earsReady = undefined;
    else voiceReady = undefined;
  });
  return pool;
}

/**
 * Loads the recogniser on its thread (once; again after the thread was let go): resolves once the decoder of
 * one-answer grammars (a field asked: most turns) is ready; the one of several answers (a second to compile) loads
 * after it.
 */
export function warmEars(): Promise<unknown> {
  const warm = (hint?: ListenHint) => runSpeech({ kind: 'hear', pcm: new ArrayBuffer(0), sampleRateHz: 8000, ...(hint ? { hint } : {}) });
  earsReady ??= warm({ asking: 'customer_name', open: [] }).then(() => { void warm().catch(() => {}); })
    .catch((err) => { earsReady = undefined; throw err; });
  return earsReady;
}

/** Starts the voice's thread and compiles Flite there (once; again after the thread was let go). */
export function warmVoice(): Promise<unknown> {
  voiceReady ??= runSpeech({ kind: 'speak', text: 'Hi.', voice: 'kal16', sampleRateHz: 8000 }).catch((err) => { voiceReady = undefined; throw err; });
  return voiceReady;
}

/** How long a speech thread started from now on stays up with nothing to do (default 2 minutes; tests shorten it). */
export function setSpeechIdleMs(ms: number): void { idleMs = ms; }

/** Ends the speech threads (tests, shutdown); the next task starts them again. */
export async function closeSpeechPool(): Promise<void> {
  const all = Object.values(pools);
  for (const k of Object.keys(pools)) delete pools[k as SpeechTask['kind']];
  earsReady = voiceReady = undefined;
  await Promise.all(all.map((p) => p.destroy()));
}
