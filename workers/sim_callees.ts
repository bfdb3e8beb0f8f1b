/** Thread hosting simulated callees (see src/adapters/sim/callees.ts): lines to start and their side channel, its own ticker. */
import { parentPort, workerData } from 'node:worker_threads';
import { Ticker } from '../src/media/ticker.js';
import { CalleeLines, type CalleeThreadMessage } from '../src/adapters/sim/callees.js';

const lines = new CalleeLines(new Ticker((workerData as { tickerPeriodMs: number }).tickerPeriodMs));
parentPort!.on('message', (m: CalleeThreadMessage) => {
  if ('line' in m) lines.launch(m.line);
  else lines.tell(m.told.callId, m.told.text);
});
