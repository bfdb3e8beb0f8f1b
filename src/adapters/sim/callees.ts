/**
 * Where simulated callees run. In-process (the default) they share the service's event loop and ticker; on a
 * thread of their own (SIM_CALLEE_THREAD=true) their speech synthesis and listening stay off the thread that
 * runs the calls, so a load test measures the service rather than the service plus hundreds of phones.
 * Either way they reach the service only through the media WebSocket, like a carrier.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { sharedTicker, tickerPeriodFor, type Ticker } from '../../media/ticker.js';
import { startSimCalleeLine, type SimCalleeLineOptions } from './callee_line.js';

export type CalleeLineRequest = Omit<SimCalleeLineOptions, 'ticker'>;

export interface SimCallees {
  /** dials the service's media edge as the callee of one call (fire and forget: the call's session ends it) */
  launch(o: CalleeLineRequest): void;
  close(): Promise<void>;
}

export function inProcessCallees(ticker: Ticker): SimCallees {
  return { launch: (o) => { startSimCalleeLine({ ...o, ticker }); }, close: async () => {} };
}

/** Callees for simulated calls at `timeScale`: on the process's shared ticker, or on a thread of their own. */
export function simCallees(o: { timeScale: number; thread: boolean }): SimCallees {
  const period = tickerPeriodFor(o.timeScale);
  return o.thread ? threadCallees(period) : inProcessCallees(sharedTicker(period));
}

// Same extension as this module: .ts under tsx / tap's loader, .js if the tree is ever compiled.
const WORKER = new URL(`../../../workers/sim_callees.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
const ENTRY = new URL('../../../workers/sim_callees_entry.cjs', import.meta.url);

export function threadCallees(tickerPeriodMs: number): SimCallees {
  const worker = new Worker(ENTRY, { workerData: { tickerPeriodMs, file: fileURLToPath(WORKER), href: WORKER.href } });
  worker.unref();
  return {
    launch: (o) => worker.postMessage(o),
    close: async () => { await worker.terminate(); },
  };
}
