/**
 * Where simulated callees run. In-process (the default) they share the service's event loop and ticker; on a
 * thread of their own (SIM_CALLEE_THREAD=true) their listening and pacing stay off the thread that runs the calls,
 * so a load test measures the service rather than the service plus hundreds of phones. Either way they reach the
 * service through the media WebSocket, like a carrier, plus the simulated carrier's side channel: `tell` gives a
 * call's callee the words of each agent sentence (src/adapters/README.md, "Simulated calls").
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { sharedTicker, tickerPeriodFor, type Ticker } from '../../media/ticker.js';
import { startSimCalleeLine, type SimCalleeLine, type SimCalleeLineOptions } from './callee_line.js';

export type CalleeLineRequest = Omit<SimCalleeLineOptions, 'ticker'>;
/** what the callee thread is sent: a line to start, or an agent sentence for one of its lines */
export type CalleeThreadMessage = { line: CalleeLineRequest } | { told: { callId: string; text: string } };

export interface SimCallees {
  /** dials the service's media edge as the callee of one call (fire and forget: the call's session ends it) */
  launch(o: CalleeLineRequest): void;
  /** the side channel: the agent of `callId` is saying `text` (its audio follows on the media socket) */
  tell(callId: string, text: string): void;
  close(): Promise<void>;
}

/** Lines by call id, while they run. */
export class CalleeLines {
  readonly #lines = new Map<string, SimCalleeLine>();
  constructor(private readonly ticker: Ticker) {}

  launch(o: CalleeLineRequest): void {
    const line = startSimCalleeLine({ ...o, ticker: this.ticker });
    this.#lines.set(o.callId, line);
    void line.done.then(() => { if (this.#lines.get(o.callId) === line) this.#lines.delete(o.callId); });
  }

  tell(callId: string, text: string): void { this.#lines.get(callId)?.told(text); }
}

export function inProcessCallees(ticker: Ticker): SimCallees {
  const lines = new CalleeLines(ticker);
  return { launch: (o) => lines.launch(o), tell: (id, text) => lines.tell(id, text), close: async () => {} };
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
  const post = (m: CalleeThreadMessage) => worker.postMessage(m);
  return {
    launch: (line) => post({ line }),
    tell: (callId, text) => post({ told: { callId, text } }),
    close: async () => { await worker.terminate(); },
  };
}
