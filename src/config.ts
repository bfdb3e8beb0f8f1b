/**
 * Configuration is read from the environment once, validated, and frozen.
 * A bad value stops start-up with a message naming the key (GUIDE habit 8).
 * Names carry units (…Ms, …Bytes, …Seconds).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import ipaddr from 'ipaddr.js';
import { AddressPolicy } from './net/address_policy.js';
import { LIVE_SLOTS, SLOTS, SLOT_NAMES, selectSlot, settingOf, type Slot, type SlotSpec } from './providers/catalog.js';
import { providerSettings } from './providers/settings.js';

const intFrom = (min: number, max: number) =>
  z.coerce.number().int().min(min).max(max);

/** An absolute http(s) base address ending in /v1 (a trailing slash is dropped); no user:password@, it is public. */
const apiBase = z.string().regex(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?\/v1\/?$/, 'must be an http(s) URL ending in /v1').transform((u) => u.replace(/\/$/, ''));

const TRUST_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const isTrustList = (v: string) => v.split(',').map((s) => s.trim()).every((s) => TRUST_NAMES.has(s) || ipaddr.isValid(s) || ipaddr.isValidCIDR(s));

const schema = z.object({
  SERVICE_MODE: z.enum(['simulator', 'live']).default('simulator'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: intFrom(0, 65535).default(8787),
  PUBLIC_BASE_URL: z.string().url().optional(),
  /** this instance's own public address (ending in /v1) behind a balancer: media sockets are given it (README, "Several instances") */
  INSTANCE_PUBLIC_URL: z.string().url().optional(),
  SERVICE_DEV_EMAIL: z.string().email().default('dev@example.com'),
  SERVICE_DEV_PASSWORD: z.string().min(8).optional(),
  SERVICE_API_KEY: z.string().min(16).optional(),
  SERVICE_WEBHOOK_SECRET: z.string().min(16).optional(),
  SERVICE_JWT_SECRET: z.string().min(32).optional(),
  JWT_TTL_SECONDS: intFrom(60, 7 * 24 * 3600).default(3600),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  /** PGlite data directory; "memory" keeps the embedded database in memory (tests). */
  DATA_DIR: z.string().min(1).default('./data'),
  /** where call recordings are written and read; several instances share one folder (a shared volume) so any serves a link */
  RECORDINGS_DIR: z.string().min(1).optional(),
  DB_POOL_MAX: intFrom(1, 200).default(10),
  /**
   * the embedded database's buffer pool, MB: PostgreSQL's default (128) held ~100 MB more resident memory for an
   * embedded database of a few MB (bench/README.md, startup); pages not in it are read from DATA_DIR through the OS cache
   */
  PGLITE_SHARED_BUFFERS_MB: intFrom(1, 4096).default(32),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL').optional(),
  /** before every key this service writes in Redis (rate-limit counts), so deployments sharing one Redis count apart */
  REDIS_KEY_PREFIX: z.string().regex(/^[\w:.-]{0,64}$/, 'must be up to 64 letters, digits, _ : . -').default('voicecall:'),
  /** GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>` when set; unset = public */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** serve GET /metrics on a listener of its own (METRICS_HOST:METRICS_PORT) instead of the API's address */
  METRICS_PORT: intFrom(0, 65535).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  JSON_BODY_LIMIT_BYTES: intFrom(1024, 50 * 1024 * 1024).default(256 * 1024),
  /** a connection must send its whole request head (line and headers) within this, from its first byte or from connect */
  HTTP_HEADERS_TIMEOUT_MS: intFrom(100, 600_000).default(5_000),
  /** the whole request, head and body (a 12 MiB audio upload on a slow uplink needs time) */
  HTTP_REQUEST_TIMEOUT_MS: intFrom(100, 3_600_000).default(120_000),
  /** an idle kept-alive connection is closed after this */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: intFrom(100, 600_000).default(5_000),
  AUDIO_BODY_LIMIT_BYTES: intFrom(1024, 100 * 1024 * 1024).default(12 * 1024 * 1024),
  AUDIO_MAX_SECONDS: intFrom(1, 600).default(60),
  LOGIN_ATTEMPTS_PER_MINUTE: intFrom(1, 10_000).default(10),
  /** login attempts per client address across all emails (password spraying); a success gives its point back */
  LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: intFrom(1, 100_000).default(30),
  /**
   * proxies whose X-Forwarded-For is believed (Express `trust proxy`: addresses, CIDRs, or loopback, linklocal,
   * uniquelocal, comma-separated); unset = none, the client address is the peer's
   */
  TRUST_PROXY: z.string().refine(isTrustList, 'must be addresses, CIDRs or loopback/linklocal/uniquelocal, comma-separated').optional(),
  MAX_CONCURRENT_CALLS_PER_TENANT: intFrom(1, 100_000).default(1000),
  AUDIO_THREADS: intFrom(0, 64).default(0),
  // Adapters: host:port of a gRPC adapter server per adapter; unset = the live provider or the in-process simulator.
  ADAPTER_CARRIER_URL: z.string().regex(/^[\w.\-\[\]:]+:\d{1,5}$/, 'must be host:port').optional(),
  ADAPTER_STT_URL: z.string().regex(/^[\w.\-\[\]:]+:\d{1,5}$/, 'must be host:port').optional(),
  ADAPTER_DIALOG_URL: z.string().regex(/^[\w.\-\[\]:]+:\d{1,5}$/, 'must be host:port').optional(),
  ADAPTER_TTS_URL: z.string().regex(/^[\w.\-\[\]:]+:\d{1,5}$/, 'must be host:port').optional(),
  /** tool integrations (calendar, CRM, messaging) behind an adapter server; unset = in-process (simulated) */
  ADAPTER_TOOLS_URL: z.string().regex(/^[\w.\-\[\]:]+:\d{1,5}$/, 'must be host:port').optional(),
  /** simulated calls run this many times faster than real time (same media-time decisions); 1 = real time */
  SIM_TIME_SCALE: z.coerce.number().min(0.1).max(100).default(1),
  /** run simulated callees on a thread of their own (load tests: the service's thread then runs only calls) */
  SIM_CALLEE_THREAD: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  /**
   * what simulated calls speak: 'offline' = the offline voice and grammar ears (real speech end to end); 'tones' = the
   * SimVoice tone code, a cheap load generator for tests and benchmarks that run many calls (src/adapters/README.md)
   */
  SIM_SPEECH: z.enum(['offline', 'tones']).default('offline'),
  /** first retry delay of an outbound webhook, ms (doubles per attempt, with jitter) */
  WEBHOOK_RETRY_BASE_MS: intFrom(10, 3_600_000).default(1000),
  /** how often each instance looks for due webhooks, ms */
  WEBHOOK_POLL_MS: intFrom(10, 60_000).default(500),
  /** one deadline per webhook attempt over connect, headers and body, ms */
  WEBHOOK_TIMEOUT_MS: intFrom(100, 120_000).default(10_000),
  /** exceptions to the outbound address policy (comma-separated CIDRs, e.g. 127.0.0.1/32 for a local receiver) */
  WEBHOOK_ALLOWED_CIDRS: z.string().refine((v) => { try { AddressPolicy.fromList(v); return true; } catch { return false; } },
    'must be comma-separated CIDRs such as 127.0.0.1/32').optional(),
  /** live items and conversation messages of live calls kept in memory while PostgreSQL is unreachable */
  DB_OUTAGE_BUFFER_WRITES: intFrom(0, 1_000_000).default(10_000),
  /** default deadline of an adapter call (dialog turn, TTS stream, STT finalize, hang-up), ms */
  ADAPTER_TIMEOUT_MS: intFrom(10, 120_000).default(3000),
  /** the longest wait for a dialog model's post-call summary before the one built from the fields is stored, ms */
  SUMMARY_TIMEOUT_MS: intFrom(100, 60_000).default(5000),
  /** 'whole' synthesises a reply only once the model finished it: only to measure what sentence streaming saves */
  REPLY_MODE: z.enum(['streamed', 'whole']).default('streamed'),
  // Privacy, KPIs, campaigns, inbound webhooks.
  PRIVACY_RETENTION_DEFAULT_DAYS: intFrom(1, 3650).default(30),
  /** how often transcript retention runs in the service (0 = never; POST /v1/privacy/expire still works) */
  PRIVACY_EXPIRE_INTERVAL_MS: intFrom(0, 7 * 24 * 3600 * 1000).default(3600 * 1000),
  KPI_QUALIFIED_MIN_SCORE: intFrom(0, 100).default(60),
  /** campaign dialer loop period (0 = this instance does not dial) */
  CAMPAIGN_TICK_MS: intFrom(0, 3600 * 1000).default(1000),
  /** a contact claimed but never linked to a call is released after this long (crash between claim and dispatch) */
  CAMPAIGN_CLAIM_LEASE_SECONDS: intFrom(5, 3600).default(120),
  /** an engine not seen for this long is dead: any other ends its live calls (failed, instance_lost) */
  CALL_INSTANCE_LEASE_SECONDS: intFrom(5, 3600).default(60),
  INBOUND_WEBHOOK_TOLERANCE_SECONDS: intFrom(1, 3600).default(300),
  /**
   * signed: inbound webhooks must be signed (a tenant's inbound secret, or SERVICE_WEBHOOK_SECRET); unsigned: unsigned
   * ones are accepted too. Unset: signed with SERVICE_WEBHOOK_SECRET set; otherwise unsigned in the simulator (with a
   * warning at start), and live mode refuses to start until one of them is set.
   */
  INBOUND_WEBHOOKS: z.enum(['signed', 'unsigned']).optional(),
  // Conversation demo, leads, DND, handoffs.
  /** region for phone numbers given without a country code (ISO 3166 alpha-2) */
  DEFAULT_PHONE_REGION: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166 alpha-2 code').default('IN'),
  /** a second lead for the same tenant+number within this window is a duplicate (no second call), s */
  LEAD_DUPLICATE_WINDOW_SECONDS: intFrom(0, 365 * 24 * 3600).default(24 * 3600),
  /** how often this instance claims due scheduled lead calls (0 = never) */
  LEAD_SCHEDULER_TICK_MS: intFrom(0, 3600 * 1000).default(5000),
  /** a claimed scheduled call not finished within this lease is claimed again (instance crash), s */
  LEAD_SCHEDULER_LEASE_SECONDS: intFrom(5, 3600).default(120),
  /** lifetime of anonymous demo conversations, s */
  DEMO_CONVERSATION_TTL_SECONDS: intFrom(60, 7 * 24 * 3600).default(3600),
  /** anonymous demo requests (create, turns, audio) per client IP per minute */
  DEMO_REQUESTS_PER_MINUTE: intFrom(1, 100_000).default(60),
  // Web pages: the API base address the public site and the operator app call (served at run time by
  // GET /config.json, so a change needs no rebuild); unset = the page's own origin.
  PUBLIC_VOICE_API_ENDPOINT: apiBase.optional(),
  SERVICE_API_BASE: apiBase.optional(),
  /** demo requests with a JWT, per tenant per minute (audio turns cost decoding and detection) */
  DEMO_TENANT_REQUESTS_PER_MINUTE: intFrom(1, 1_000_000).default(300),
  /** the tenant an anonymous demo conversation is handed to when the visitor asks for a human ("none": no handoff) */
  /** the tenant whose admins may create tenants (POST /v1/tenants); "none": nobody */
  PLATFORM_TENANT_ID: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a tenant id (e.g. ten_dev) or none').default('ten_dev'),
  DEMO_TENANT_ID: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a tenant id (e.g. ten_dev) or none').default('ten_dev'),
  ...providerSettings,
});

export type Env = z.infer<typeof schema>;

export interface Config extends Env {
  /** Resolved JWT signing secret (generated per process in simulator mode when unset). */
  jwtSecret: string;
  devPassword: string;
  /** Base URL the outside world uses to reach us, ending in /v1. */
  publicBaseUrl: string;
  /** INBOUND_WEBHOOKS, resolved: whether unsigned inbound webhooks are accepted */
  inboundWebhooks: 'signed' | 'unsigned';
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Keys live mode cannot run without: a shared JWT secret, a real admin password, and where carriers reach us. */
const LIVE_REQUIRED = ['SERVICE_JWT_SECRET', 'SERVICE_DEV_PASSWORD', 'SERVICE_API_KEY', 'PUBLIC_BASE_URL'] as const;

const GRPC_URL_OF: Partial<Record<Slot, keyof Env>> = { carrier: 'ADAPTER_CARRIER_URL', speech_to_text: 'ADAPTER_STT_URL', dialog_model: 'ADAPTER_DIALOG_URL', text_to_speech: 'ADAPTER_TTS_URL' };

/** ", e.g. deepgram with DEEPGRAM_API_KEY": what naming a provider needs, so the message says what to set */
function keysHint(slot: Slot): string {
  const options = Object.entries((SLOTS[slot] as SlotSpec).providers).map(([name, p]) => `${name} with ${p.keys.join(', ')}`);
  return `: ${options.join('; or ')}`;
}

/**
 * Reads and checks every setting, and names every problem in one message (a missing key, a bad value, a provider
 * without its keys), so a new deployment is fixed in one restart, not one per key.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const clean = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const problems: string[] = [];
  const parsed = schema.safeParse(clean);
  if (!parsed.success) {
    for (const i of parsed.error.issues) problems.push(`${i.path.join('.')}: ${i.message}`);
  }
  // The checks between settings run on what parsed (or, when something did not, on the raw values: a missing key
  // is missing either way), so one message holds both kinds.
  const e = (parsed.success ? parsed.data : clean) as Env;
  if (parsed.success && e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_REQUEST_TIMEOUT_MS) {
    problems.push(`HTTP_HEADERS_TIMEOUT_MS (${e.HTTP_HEADERS_TIMEOUT_MS}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${e.HTTP_REQUEST_TIMEOUT_MS})`);
  }
  for (const slot of SLOT_NAMES) {
    const sel = selectSlot(e, slot);
    // a provider chosen by name must have its keys, in any mode: half-configured is a mistake, not the simulator
    if (settingOf(slot) && sel.provider && sel.missing.length) {
      problems.push(`${settingOf(slot)}=${sel.provider} requires ${sel.missing.join(', ')}`);
    }
    const grpc = GRPC_URL_OF[slot];
    if (sel.ambiguous && !(grpc && e[grpc])) { // an adapter server serving the slot makes the keys moot
      problems.push(`${settingOf(slot)}: the keys of ${sel.ambiguous.join(' and ')} are all set; name the ${slot} provider (${settingOf(slot)}=${sel.ambiguous.join(' or ')})`);
    }
  }
  if (e.SERVICE_MODE === 'live') {
    const missing: string[] = LIVE_REQUIRED.filter((k) => !e[k]);
    for (const slot of LIVE_SLOTS) {
      const sel = selectSlot(e, slot);
      const grpc = GRPC_URL_OF[slot];
      if (!sel.provider && grpc && e[grpc]) continue; // an adapter server provides it
      if (!sel.provider && !sel.ambiguous) missing.push(`${settingOf(slot)} (the ${slot} provider${keysHint(slot)})`);
    }
    // inbound webhooks edit a tenant's compliance data (DND): live mode does not leave them open without being told
    if (!e.SERVICE_WEBHOOK_SECRET && !e.INBOUND_WEBHOOKS) {
      missing.push('SERVICE_WEBHOOK_SECRET (or INBOUND_WEBHOOKS=signed to take only per-tenant inbound secrets, or INBOUND_WEBHOOKS=unsigned to accept unsigned inbound webhooks)');
    }
    if (missing.length) problems.push(`SERVICE_MODE=live requires ${missing.join(', ')}`);
  }
  if (problems.length === 1) throw new ConfigError(`invalid configuration: ${problems[0]}`);
  if (problems.length) throw new ConfigError(`invalid configuration (${problems.length} problems):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  const hostForUrl = e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST;
  return {
    ...e,
    jwtSecret: e.SERVICE_JWT_SECRET ?? randomBytes(32).toString('base64url'),
    devPassword: e.SERVICE_DEV_PASSWORD ?? 'dev-password',
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://${hostForUrl}:${e.PORT}/v1`).replace(/\/$/, ''),
    inboundWebhooks: e.INBOUND_WEBHOOKS ?? (e.SERVICE_WEBHOOK_SECRET ? 'signed' : 'unsigned'),
  };
}
