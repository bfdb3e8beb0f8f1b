/**
 * What `npm start` prints for a person, beside the JSON log: progress while the slow parts start (the embedded
 * database takes seconds), then where to go. Plain lines on stdout, each starting with "voicecall:" or two spaces,
 * so a log shipper reading JSON lines can tell them apart. Secrets never appear: a password set in the
 * environment is named by its setting, and a database URL is shown without its credentials.
 */
import { resolve } from 'node:path';
import type { Config } from '../config.js';

export interface BannerFacts {
  /** the port actually bound (PORT=0 picks one) */
  port: number;
  storage: 'pg' | 'pglite' | string;
  bus: 'redis' | 'memory' | string;
  /** one line per provider slot chosen from its keys (src/integrations.ts), e.g. "dialog_model: openai (OPENAI_API_KEY is set)" */
  derived?: string[];
  /** INSTANCES: how many service processes share the port (the first of them prints this banner) */
  processes?: number;
}

/** "voicecall: <step> …", with the seconds since start-up began. */
export function progressLine(step: string, sinceMs: number): string {
  return `voicecall: ${step} … (${(sinceMs / 1000).toFixed(1)} s)`;
}

/** host:port/database of a postgres:// URL, never its user or password */
function describeDatabase(url: string): string {
  try {
    const u = new URL(url);
    return `PostgreSQL at ${u.host}${u.pathname}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}

export function bannerLines(config: Config, facts: BannerFacts, startedInMs: number): string[] {
  // the address this machine reaches the listener on (0.0.0.0 and :: listen everywhere; a browser wants one host)
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const local = `http://${host}:${facts.port}`;
  const signIn = config.SERVICE_DEV_PASSWORD
    ? `${config.SERVICE_DEV_EMAIL} with the password in SERVICE_DEV_PASSWORD`
    : `${config.SERVICE_DEV_EMAIL} / ${config.devPassword}   (development admin; set SERVICE_DEV_PASSWORD to change it)`;
  const data = facts.storage === 'pg'
    ? describeDatabase(config.DATABASE_URL ?? '')
    : config.DATA_DIR === 'memory' ? 'in memory (embedded PGlite; gone when the process stops)' : `${resolve(config.DATA_DIR)}   (embedded PGlite)`;
  const mode = config.SERVICE_MODE === 'live'
    ? 'live: calls go out through the configured providers'
    : 'simulator: calls are simulated, nobody is dialled (SERVICE_MODE=live with provider keys for real calls)';
  const lines = [
    `voicecall: ready in ${(startedInMs / 1000).toFixed(1)} s`,
    `  site      ${local}/`,
    `  app       ${local}/app`,
    `  API       ${config.publicBaseUrl}   (reference: ${config.publicBaseUrl}/openapi.json)`,
    `  sign in   ${signIn}`,
    `  mode      ${mode}`,
    `  data      ${data}; bus ${facts.bus === 'redis' ? 'Redis' : 'in-process'}`,
  ];
  if (facts.processes) lines.push(`  processes ${facts.processes} service processes share port ${facts.port} (INSTANCES)`);
  for (const d of facts.derived ?? []) lines.push(`  provider  ${d}`);
  lines.push('  stop      Ctrl+C');
  return lines;
}
