/**
 * The service under test for bench/leads_http.bench.ts, in its own process so autocannon does not share its
 * event loop. Config from the environment (the bench sets it); prints {"baseUrl": …} once listening.
 */
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/server.js';

const config = loadConfig();
const server = await startServer(config, { log: createLogger(config.LOG_LEVEL) });
// Diagnostic only (BENCH_LEADS_WITHOUT_ENGINE=1): leads dial into a no-op port, isolating the leads path's own cost.
if (process.env.BENCH_LEADS_WITHOUT_ENGINE === '1') {
  let n = 0;
  server.services.leads.calls = { dispatch: async () => ({ id: `call_${(++n).toString(16).padStart(24, '0')}`, status: 'queued' }) };
}
// Diagnostic only (BENCH_WITHOUT_RUNNER=1): dispatched calls are stored and announced but not driven, isolating
// the HTTP path from the simulated calls it starts (they otherwise share these two cores). The calls stay active
// (stored dialing, never ended), so every dispatch's active count reads more of them as the run goes on: compare
// the service's CPU with it, not PostgreSQL's.
if (process.env.BENCH_WITHOUT_RUNNER === '1') {
  server.services.calls.attachRunner({ start: () => {}, hangup: () => false, transfer: async () => false });
}
process.stdout.write(`${JSON.stringify({ baseUrl: server.baseUrl, storage: server.services.db.kind })}\n`);
process.on('SIGTERM', () => { void server.close().then(() => process.exit(0)); });
