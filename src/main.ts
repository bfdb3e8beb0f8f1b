/** Entry point: load config (exit 2 naming the bad key), start, and shut down gracefully on SIGTERM/SIGINT. */
import { loadConfig, ConfigError } from './config.js';
import { createLogger } from './log.js';
import { startServer } from './server.js';

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
if (!config.SERVICE_JWT_SECRET) {
  log.warn(config.DATA_DIR === 'memory'
    ? 'SERVICE_JWT_SECRET is not set and DATA_DIR=memory: using a random per-process secret (tokens die with the process)'
    : `SERVICE_JWT_SECRET is not set: using the secret kept in ${config.DATA_DIR}/service_secret (set it when several instances share tokens)`);
}
const server = await startServer(config, { log });
log.info({ baseUrl: server.baseUrl, mode: config.SERVICE_MODE, storage: server.services.db.kind, bus: server.services.bus.kind }, 'voicecall listening');

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
