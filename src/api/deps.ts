/**
 * What the HTTP layer is handed. Built once by src/services.ts; tests build it with in-memory parts.
 * Areas add their services here as fields (calls, audio, stream, leads, …).
 */
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Db } from '../db/db.js';
import type { Bus } from '../bus/bus.js';
import type { TokenService } from '../auth/tokens.js';
import type { TokenRevocation } from '../auth/revocation.js';
import type { Metrics } from '../metrics.js';
import type { TenantRepo } from '../repos/tenants.js';
import type { AgentRepo } from '../repos/agents.js';
import type { RateLimits } from './rate_limits.js';
import type { CallEventSink } from '../stream/types.js';
import type { StreamRuntime } from '../stream/runtime.js';
import type { OpsServices } from '../campaigns/wiring.js';
import type { AdapterRuntime } from '../adapters/index.js';
import type { ToolRunner } from '../tools/index.js';
import type { CallService } from '../calls/service.js';
import type { CallEngine } from '../calls/engine.js';
import type { AudioPool } from '../audio/index.js';
import type { LeadServices } from '../leads/wiring.js';
import type { DemoConversations } from '../conversations/demo.js';
import type { HandoffService } from '../handoffs/service.js';

export interface AppDeps {
  config: Config;
  log: Logger;
  db: Db;
  bus: Bus;
  tokens: TokenService;
  /** per-request check that a user's JWT is not revoked; revocations reach every instance over the bus */
  revocation: TokenRevocation;
  metrics: Metrics;
  rateLimits: RateLimits;
  repos: { tenants: TenantRepo; agents: AgentRepo };
  /** live items of calls: stored with a per-call seq, then published on the bus */
  callEvents: CallEventSink;
  stream: StreamRuntime;
  /** carrier, speech-to-text, dialog, text-to-speech: simulator, live provider or gRPC adapter server, per config */
  adapters: AdapterRuntime;
  /** calendar_booking / crm_sync / messaging_brochure integrations, each returning { type, status } */
  tools: ToolRunner;
  /** dispatch / get / list / hangup / transfer calls, onCallEnded */
  calls: CallService;
  /** the rest of the call engine: carrier, media edges, webhook outbox, recordings */
  callEngine: CallEngine;
  /** privacy export/erase/retention */
  privacy: OpsServices['privacy'];
  /** campaigns and this instance's dialer */
  campaigns: OpsServices['campaigns'];
  /** effects of inbound CRM/calendar webhooks */
  inbound: OpsServices['inbound'];
  /** the audio worker pool: speech/turn/barge-in detection off the event loop */
  audio: AudioPool;
  /** leads, DND registry, consent log, scheduled lead calls */
  leads: LeadServices;
  /** the conversation demo loop */
  conversations: DemoConversations;
  /** operator handoffs */
  handoffs: HandoffService;
}
