/** Thread hosting simulated callees (see src/adapters/sim/callees.ts): one line per message, its own ticker. */
import { parentPort, workerData } from 'node:worker_threads';
import { Ticker } from '../src/media/ticker.js';
import { startSimCalleeLine } from '../src/adapters/sim/callee_line.js';
import type { CalleeLineRequest } from '../src/adapters/sim/callees.js';

const ticker = new Ticker((workerData as { tickerPeriodMs: number }).tickerPeriodMs);
parentPort!.on('message', (o: CalleeLineRequest) => { startSimCalleeLine({ ...o, ticker }); });
