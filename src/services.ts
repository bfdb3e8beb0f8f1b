/**
 * Builds everything the process needs from the config: storage (pg or PGlite), bus (Redis or in-process),
 * repositories, tokens, metrics; seeds the dev tenant. close() tears it down in reverse order, once.
 */
import { join, resolve } from 'node:path';
import type { Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { openDb, type Db } from './db/db.js';
import { lockDataDir, usesEmbeddedDataDir } from './db/data_dir_lock.js';
import { isNewCluster } from './db/pglite_init.js';
import { outageBufferOf } from './db/outage.js';
import { migrate } from './db/migrate.js';
import { MemoryBus } from './bus/memory_bus.js';
import { RedisBus } from './bus/redis_bus.js';
import { Redis } from 'ioredis';
import { TokenService } from './auth/tokens.js';
import { hashPassword, verifyPassword } from './auth/passwords.js';
import { TokenRevocation } from './auth/revocation.js';
import { persistentSecret } from './auth/service_secret.js';
import { AddressPolicy } from './net/address_policy.js';
import { setOutboundPolicy } from './net/customer_url.js';
import { createMetrics } from './metrics.js';
import { TenantRepo } from './repos/tenants.js';
import { AgentRepo, DEFAULT_AGENT } from './repos/agents.js';
import { createRateLimits } from './api/rate_limits.js';
import type { AppDeps } from './api/deps.js';
import { createStreamRuntime } from './stream/runtime.js';
import { createAdapters } from './adapters/index.js';
import { createTools } from './tools/index.js';
import { buildOpsServices } from './campaigns/wiring.js';
import { createCallEngine } from './calls/engine.js';
import { AudioPool } from './audio/index.js';
import { buildLeadServices } from './leads/wiring.js';
import { DemoConversations } from './conversations/demo.js';
import { HandoffService } from './handoffs/service.js';
import { routedCallControl } from './handoffs/call_control.js';

export const DEV_TENANT_ID = 'ten_dev';
export const DEFAULT_AGENT_ID = 'default';

export interface Services extends AppDeps {
  close(): Promise<void>;
}

export interface BuildOptions {
  log?: Logger;
  /** called as each slow step of start-up begins (npm start prints them: the embedded database takes seconds) */
  progress?: (step: string) => void;
}

export async function buildServices(config: Config, opts: BuildOptions = {}): Promise<Services> {
  const log = opts.log ?? createLogger(config.LOG_LEVEL);
  const progress = opts.progress ?? (() => {});
  if (config.inboundWebhooks === 'unsigned') {
    log.warn(`inbound webhooks (POST /v1/webhooks/crm, /v1/webhooks/calendar) accept unsigned requests naming any tenant${config.INBOUND_WEBHOOKS ? ' (INBOUND_WEBHOOKS=unsigned)' : ''}: `
      + 'set SERVICE_WEBHOOK_SECRET, or create per-tenant inbound secrets (POST /v1/inbound-secrets) and set INBOUND_WEBHOOKS=signed');
  }
  // The embedded database on disk is one process's at a time: a second one stops here (DataDirLockedError).
  const lock = usesEmbeddedDataDir(config) ? await lockDataDir(config.DATA_DIR) : undefined;
  let db: Db;
  try {
    // Without SERVICE_JWT_SECRET the secret is kept in DATA_DIR, so tokens and recording links survive a restart.
    if (!config.SERVICE_JWT_SECRET && config.DATA_DIR !== 'memory') config.jwtSecret = await persistentSecret(config.DATA_DIR);
    setOutboundPolicy(AddressPolicy.fromList(config.WEBHOOK_ALLOWED_CIDRS));
    const embedded = config.DATA_DIR === 'memory' ? 'in memory' : `in ${resolve(config.DATA_DIR)}`;
    progress(config.DATABASE_URL ? 'connecting to PostgreSQL'
      : config.DATA_DIR !== 'memory' && isNewCluster(join(config.DATA_DIR, 'pglite')) ? `creating the embedded database (PGlite) ${embedded}: first start only, it takes a while`
        : `starting the embedded database (PGlite) ${embedded}`);
    db = await openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, poolMax: config.DB_POOL_MAX, pgliteSharedBuffersMb: config.PGLITE_SHARED_BUFFERS_MB });
  } catch (err) {
    await lock?.release();
    throw err;
  }
  // closed in this order; the lock goes last, once the database is closed
  const closers: Array<() => Promise<void>> = [() => db.close(), async () => lock?.release()];
  const outage = outageBufferOf(db).configure({ maxWrites: config.DB_OUTAGE_BUFFER_WRITES, log });
  closers.unshift(async () => outage.close());
  try {
    progress('applying database migrations');
    await migrate(db);
    const bus = config.REDIS_URL ? new RedisBus(config.REDIS_URL) : new MemoryBus();
    closers.unshift(() => bus.close());
    // login and demo limits count in Redis when there is one, on a connection of their own that fails fast
    const limitsRedis = config.REDIS_URL ? new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false }) : undefined;
    limitsRedis?.on('error', () => {}); // an outage is met by the in-memory fallback (src/api/rate_limits.ts)
    if (limitsRedis) closers.unshift(async () => { limitsRedis.disconnect(); });
    const repos = { tenants: new TenantRepo(db), agents: new AgentRepo(db) };
    await seedDevTenant(config, repos);
    const revocation = new TokenRevocation(repos.tenants, bus, (err) => log.warn({ err }, 'token revocation: bus message failed'));
    await revocation.start();
    closers.unshift(async () => revocation.close());
    const stream = createStreamRuntime({ db, bus, log });
    closers.unshift(() => stream.close());
    const adapters = createAdapters(config, { warn: (msg) => log.warn(msg), log });
    closers.unshift(() => adapters.close());
    const tools = createTools(config, { warn: (msg) => log.warn(msg), log });
    closers.unshift(() => tools.close());
    const audio = new AudioPool({ threads: config.AUDIO_THREADS || undefined });
    progress(`starting ${audio.threads} audio worker thread${audio.threads === 1 ? '' : 's'}`);
    closers.unshift(() => audio.close());
    await audio.warm();
    const callEngine = createCallEngine({ config, db, log, agents: repos.agents, events: stream.sink, adapters, tools, pool: audio, bus });
    closers.unshift(() => callEngine.close());
    // the campaign dialer dispatches through the call engine, so it is built (and closed) after it
    const ops = buildOpsServices(config, db, log, { calls: callEngine.calls });
    closers.unshift(() => ops.close());
    const leads = buildLeadServices(config, db, log, repos.agents, { calls: callEngine.calls });
    closers.unshift(() => leads.close());
    const conversations = new DemoConversations({
      db, adapters, audio: () => audio, agents: repos.agents, ttlSeconds: config.DEMO_CONVERSATION_TTL_SECONDS,
      maxAudioSeconds: config.AUDIO_MAX_SECONDS, maxAudioBytes: config.AUDIO_BODY_LIMIT_BYTES,
      summaryTimeoutMs: config.SUMMARY_TIMEOUT_MS, demoTenantId: config.DEMO_TENANT_ID === 'none' ? null : config.DEMO_TENANT_ID,
    });
    closers.unshift(() => conversations.close());
    let closed = false;
    return {
      config, log, db, bus, repos,
      callEvents: stream.sink, stream,
      adapters, tools,
      calls: callEngine.calls, callEngine,
      privacy: ops.privacy, campaigns: ops.campaigns, inbound: ops.inbound,
      audio, leads, conversations, handoffs: new HandoffService(db, stream.sink, routedCallControl(callEngine.commands, callEngine.runner)),
      tokens: new TokenService(config.jwtSecret, config.JWT_TTL_SECONDS), revocation,
      metrics: createMetrics(),
      rateLimits: createRateLimits({ loginPerMinute: config.LOGIN_ATTEMPTS_PER_MINUTE, loginPerAddressPerMinute: config.LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE },
        { redis: limitsRedis, keyPrefix: config.REDIS_KEY_PREFIX }),
      async close() {
        if (closed) return;
        closed = true;
        for (const c of closers) await c().catch((err) => log.warn({ err }, 'error while closing'));
      },
    };
  } catch (err) {
    for (const c of closers) await c().catch(() => {});
    throw err;
  }
}

/** The dev tenant, its admin (SERVICE_DEV_EMAIL/PASSWORD), the SERVICE_API_KEY and a default agent. */
async function seedDevTenant(config: Config, repos: AppDeps['repos']): Promise<void> {
  await repos.tenants.ensureTenant(DEV_TENANT_ID, 'Development tenant');
  // Replaced only when it changed: replacing revokes the admin's tokens, and every instance runs this at start.
  const admin = await repos.tenants.findUserByEmail(config.SERVICE_DEV_EMAIL);
  if (!admin || admin.role !== 'admin' || !(await verifyPassword(config.devPassword, admin.password_hash))) {
    await repos.tenants.upsertUser({ tenantId: DEV_TENANT_ID, email: config.SERVICE_DEV_EMAIL, passwordHash: await hashPassword(config.devPassword), role: 'admin' });
  }
  if (config.SERVICE_API_KEY) await repos.tenants.ensureApiKey('key_service_env', DEV_TENANT_ID, config.SERVICE_API_KEY, 'operator');
  if (!(await repos.agents.get(DEV_TENANT_ID, DEFAULT_AGENT_ID))) await repos.agents.put(DEV_TENANT_ID, DEFAULT_AGENT_ID, DEFAULT_AGENT);
}
