/**
 * Entry point: load config (exit 2 naming the bad key), start (exit 2 when another process holds the embedded
 * DATA_DIR) printing progress and then a banner of where to go (src/startup/banner.ts), and shut down gracefully on
 * SIGTERM/SIGINT.
 */
import { loadConfig, ConfigError } from './config.js';
import { createLogger } from './log.js';
import { startServer } from './server.js';
import { DataDirLockedError } from './db/data_dir_lock.js';
import { bannerLines, progressLine } from './startup/banner.js';
import { derivedProviders } from './integrations.js';
import { listenAsThisInstance, startupPrinter, superviseInstances } from './cluster.js';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  throw err;
}
const log = createLogger(config.LOG_LEVEL);
// INSTANCES=auto|N: this process only supervises N service processes sharing the port (src/cluster.ts); its
// workers run the rest of this file. The primary waits here for good: it exits from its signal handlers.
if (superviseInstances(log)) await new Promise<never>(() => {});
if (!config.SERVICE_JWT_SECRET) {
  log.warn(config.DATA_DIR === 'memory'
    ? 'SERVICE_JWT_SECRET is not set and DATA_DIR=memory: using a random per-process secret (tokens die with the process)'
    : `SERVICE_JWT_SECRET is not set: using the secret kept in ${config.DATA_DIR}/service_secret (set it when several instances share tokens)`);
}
const printer = startupPrinter();
const print = (lines: string) => { if (printer.print) process.stdout.write(`${lines}\n`); };
let server;
try {
  // process.uptime(): from the process's own start, so the figures include loading the code
  server = await startServer(config, { log, progress: (step) => print(progressLine(step, process.uptime() * 1000)) });
  await listenAsThisInstance(server, config); // a process of INSTANCES: its own address for media sockets
} catch (err) {
  if (err instanceof DataDirLockedError) {
    process.stderr.write(`${err.message}.\nStop that process first, or start this one with another DATA_DIR (or DATABASE_URL). `
      + `If no such process runs, delete ${err.lockPath}.\n`);
    process.exit(2);
  }
  throw err;
}
log.info({ baseUrl: server.baseUrl, mode: config.SERVICE_MODE, storage: server.services.db.kind, bus: server.services.bus.kind }, 'voicecall listening');
print(bannerLines(config, { port: server.port, storage: server.services.db.kind, bus: server.services.bus.kind, derived: derivedProviders(config),
  processes: printer.processes }, process.uptime() * 1000).join('\n'));

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    await server.close();
    clearTimeout(force);
    process.exit(0);
  });
}
