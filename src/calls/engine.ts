/**
 * The call engine of this process, built once by services.ts: CallService (deps.calls), the runner, the carrier
 * (the simulator, an adapter server, or the live carrier CARRIER names, src/carriers), its edge (media socket and
 * callbacks), the webhook outbox and its deliverer, recordings. close() stops live calls, then the rest.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { withDefaultTimeouts } from '../adapters/defaults.js';
import type { AdapterSet } from '../adapters/types.js';
import type { SimCarrier } from '../adapters/sim/carrier.js';
import { AudioPool } from '../audio/index.js';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { Logger } from '../log.js';
import { sharedTicker, tickerPeriodFor } from '../media/ticker.js';
import { AddressPolicy } from '../net/address_policy.js';
import { CallCapabilities } from '../auth/call_capability.js';
import { RecordingSigner } from '../recordings/signing.js';
import { RecordingStore } from '../recordings/store.js';
import type { AgentRepo } from '../repos/agents.js';
import type { CallEventSink } from '../stream/types.js';
import type { ToolRunner } from '../tools/types.js';
import { WebhookDeliverer } from '../webhooks/deliverer.js';
import { WebhookOutbox } from '../webhooks/outbox.js';
import { WebhookSecrets } from '../webhooks/secrets.js';
import { refuseUpgrade } from '../problem.js';
import { browserMediaSocket, LiveItemTap, type BrowserStream } from '../carriers/browser/index.js';
import { liveCarrier, simulatorEdge, type CarrierAnswer, type CarrierEdge, type CarrierName, type CarrierRequest } from '../carriers/index.js';
import { mediaUrlOf, STREAM_TOKEN_PARAMETER, type InboundAccepted, type InboundOffer } from '../carriers/contract.js';
import { ApiError } from '../errors.js';
import type { Bus } from '../bus/bus.js';
import { CallbackRouter } from './callback_router.js';
import { CallCommands } from './commands.js';
import { EngineInstances } from './instances.js';
import { recordingPathOf, toRecord } from './repo.js';
import type { CallRecord } from './types.js';
import { CallRunner } from './runner.js';
import { CallService } from './service.js';

export interface CallEngine {
  calls: CallService;
  runner: CallRunner;
  outbox: WebhookOutbox;
  secrets: WebhookSecrets;
  deliverer: WebhookDeliverer;
  signer: RecordingSigner;
  pool: AudioPool;
  /** this engine's liveness row and the sweep of dead engines' calls */
  instances: EngineInstances;
  /** commands about a live call, run by the instance that owns it: `callCommands.send(tenantId, callId, command)` */
  commands: CallCommands;
  /**
   * the media WebSocket of `carrier` (/v1/media/<carrier>); refused (404) for a carrier this instance does not use.
   * `browser` (/v1/media/browser) is served whatever the carrier: the browser legs of calls (src/carriers/browser);
   * so is `operator` (/v1/media/operator): an operator's softphone on a call they took (src/handoffs/operator_leg.ts).
   */
  mediaUpgrade(carrier: CarrierName | 'browser' | 'operator', req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * A call from a browser (POST /v1/browser-calls): stored as an inbound call of the tenant on the line `browser`,
   * answered, and waiting (as a carrier's call waits for its stream) for its browser leg on /v1/media/browser,
   * which proves itself with `token`, the call's single-use media capability. Ended after BROWSER_CALL_MAX_MS.
   */
  startBrowserCall(tenantId: string, o: { timeZone?: string }): Promise<{ call: CallRecord; token: string; mediaUrl: string }>;
  /** an HTTP callback of the live carrier (/v1/carriers/<carrier>/<hook>); undefined = not a carrier in use */
  carrierCallback(carrier: CarrierName, hook: string, req: CarrierRequest): Promise<CarrierAnswer> | undefined;
  /**
   * The simulator's lead calls one of the tenant's numbers (POST /v1/calls/inbound): the call is taken as a
   * carrier's would be, and the simulated caller's line connects. 404 for a number the tenant does not route,
   * 409 when a live carrier is in use.
   */
  simulateInbound(tenantId: string, o: { from: string; to: string }): Promise<CallRecord>;
  /** the agent's tones toward a live call of this instance (false: not live here) */
  sendDigits(callId: string, digits: string): boolean;
  /**
   * Replaces some adapters of the call pipeline from now on (running calls included): failure injection in
   * tests, a custom provider. They get the ADAPTER_TIMEOUT_MS deadlines like the configured ones. Returns undo.
   */
  overrideAdapters(o: Partial<AdapterSet>): () => void;
  recordingFor(callId: string): Promise<Buffer | undefined>;
  /** where this instance writes (or wrote) a call's recording */
  recordingPathOf(callId: string): string;
  close(): Promise<void>;
}

/** how long an operator's ticket to a call's audio may wait for its socket, s (a click away: a minute is plenty) */
export const OPERATOR_TOKEN_TTL_SECONDS = 60;

/** the longest a call from a browser may last: a public page must not hold a call (and a tenant's slot) open for ever */
export const BROWSER_CALL_MAX_MS = 10 * 60_000;

export interface CallEngineDeps {
  config: Config; db: Db; log: Logger; agents: AgentRepo; events: CallEventSink; tools: ToolRunner;
  /** the adapters; `simCarrier` when the carrier is the in-process simulator (it connects simulated inbound callers) */
  adapters: AdapterSet & { simCarrier?: SimCarrier };
  pool?: AudioPool;
  /** commands about a call reach its owner over it (src/calls/commands.ts); unset: this process alone */
  bus?: Bus;
}

export function createCallEngine(d: CallEngineDeps): CallEngine {
  const { config, db, log } = d;
  // the engine's own view of the adapters, so overrideAdapters() touches the call pipeline only
  const adapters: AdapterSet = { carrier: d.adapters.carrier, stt: d.adapters.stt, dialog: d.adapters.dialog, tts: d.adapters.tts };
  const signer = new RecordingSigner(config.jwtSecret);
  const mediaCapabilities = new CallCapabilities(config.jwtSecret, 'media-stream');
  // an operator's softphone on a call: a purpose of its own, so neither token opens the other's socket
  const operatorCapabilities = new CallCapabilities(config.jwtSecret, 'operator-media');
  const recordingUrl = (id: string) => signer.url(config.publicBaseUrl, id);
  const ownPool = !d.pool;
  const pool = d.pool ?? new AudioPool({ threads: config.AUDIO_THREADS > 0 ? config.AUDIO_THREADS : undefined });
  // Unique per process start: a restarted process (same host, and in a container often the same pid) must not
  // take over its predecessor's calls as if they were live here (src/calls/instances.ts ends them).
  const instanceId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  // the calls' live items, also handed to their browser legs (what a visitor's page shows as the transcript)
  const items = new LiveItemTap(d.events);
  const calls = new CallService({ db, log, agents: d.agents, events: items, maxConcurrentPerTenant: config.MAX_CONCURRENT_CALLS_PER_TENANT,
    instanceId, recordingUrl });
  const outbox = new WebhookOutbox(db);
  const secrets = new WebhookSecrets(db);
  const deliverer = new WebhookDeliverer({ outbox, secrets, log, baseDelayMs: config.WEBHOOK_RETRY_BASE_MS, pollMs: config.WEBHOOK_POLL_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS, policy: AddressPolicy.fromList(config.WEBHOOK_ALLOWED_CIDRS) });
  const ticker = sharedTicker(tickerPeriodFor(config.SIM_TIME_SCALE));
  const store = new RecordingStore(config.DATA_DIR, config.RECORDINGS_DIR);
  let runner!: CallRunner;
  const onStream = (callId: string, s: Parameters<CallRunner['attachStream']>[1]) => runner.attachStream(callId, s);
  /** a call to one of our numbers: stored (or refused), then run answered; the carrier streams it with these parameters */
  const inbound = async (offer: InboundOffer): Promise<InboundAccepted | undefined> => {
    const row = await calls.acceptInbound(offer).catch((err: unknown) => { log.warn({ err }, 'an inbound call could not be stored'); return undefined; });
    if (!row) return undefined;
    const handle = runner.startInbound(row);
    return { callId: row.id, parameters: runner.streamParameters(row), onEvent: handle.onEvent };
  };
  // behind a balancer each instance names its own address for media sockets (README, "Several instances")
  // (read when used: publicBaseUrl learns the port once the server listens)
  const instanceBaseUrl = () => (config.INSTANCE_PUBLIC_URL ?? config.publicBaseUrl).replace(/\/$/, '');
  const live = liveCarrier({ config, log: log.child({ carrier: config.CARRIER }), publicBaseUrl: config.publicBaseUrl,
    get mediaBaseUrl() { return config.INSTANCE_PUBLIC_URL?.replace(/\/$/, ''); },
    capabilities: mediaCapabilities, onStream, inbound });
  if (live) adapters.carrier = withDefaultTimeouts({ ...adapters, carrier: live }, config.ADAPTER_TIMEOUT_MS).carrier;
  // without a live carrier, the simulator's (or an adapter server's) callees stream to the simulator's edge
  const edge: CarrierEdge = live ?? simulatorEdge({ log, capabilities: mediaCapabilities, onStream });
  const mediaUrl = () => mediaUrlOf(instanceBaseUrl(), edge.name);
  const browserLeg = browserMediaSocket({ log, capabilities: mediaCapabilities, onStream: (callId, s) => {
    if (!runner.attachStream(callId, s)) return false;
    const leg = s as BrowserStream;
    leg.onClose(items.watch(callId, (m) => leg.sendItem(m)));
    return true;
  } });
  // an operator's softphone: the same browser codec, joined to the call as the operator's leg (src/handoffs/operator_leg.ts)
  const operatorLeg = browserMediaSocket({ log, capabilities: operatorCapabilities, onStream: (callId, s) => {
    if (!runner.attachOperator(callId, s)) return false;
    const leg = s as BrowserStream;
    leg.onClose(items.watch(callId, (m) => leg.sendItem(m)));
    return true;
  } });
  /** browser calls' duration limits, until their end */
  const browserLimits = new Map<string, NodeJS.Timeout>();
  runner = new CallRunner({ db, log, adapters, tools: d.tools, pool, events: items, calls, outbox,
    onEnqueued: () => deliverer.kick(), store, ticker, recordingUrl, mediaUrl,
    timeScale: config.SIM_TIME_SCALE, adapterTimeoutMs: config.ADAPTER_TIMEOUT_MS, summaryTimeoutMs: config.SUMMARY_TIMEOUT_MS, replyMode: config.REPLY_MODE, streamToken: (id) => mediaCapabilities.issue(id),
    operatorTicket: (id) => ({ token: operatorCapabilities.issue(id, Date.now(), OPERATOR_TOKEN_TTL_SECONDS), media_url: mediaUrlOf(instanceBaseUrl(), 'operator') }),
    humanTransferNumber: config.HUMAN_TRANSFER_NUMBER, ringTimeoutMs: (config.RING_TIMEOUT_SECONDS + 15) * 1000,
    // the in-process simulated carrier's callees read the agent's words beside its audio (src/adapters/README.md)
    ...(d.adapters.simCarrier && !live ? { agentSaid: (id: string, text: string) => d.adapters.simCarrier!.agentSaid(id, text) } : {}) });
  calls.attachRunner(runner);
  calls.onCallEnded((c) => { clearTimeout(browserLimits.get(c.id)); browserLimits.delete(c.id); });
  const commands = new CallCommands({ db, log, instanceId, leaseSeconds: config.CALL_INSTANCE_LEASE_SECONDS, bus: d.bus, channelPrefix: config.REDIS_KEY_PREFIX });
  commands.onFence((callId) => { if (runner.fence(callId)) log.warn({ call_id: callId }, 'a call of this instance was ended by another one: stopped here'); });
  calls.attachCommands(commands);
  commands.handle('digits', async (callId, c) => ({ live: runner.sendDigits(callId, String(c.digits)) }));
  // only files of this instance's own store, named by call id: a bus message never names a path to delete
  commands.onErased((ids) => {
    for (const id of ids) {
      let path: string;
      try { path = store.pathOf(id); } catch { continue; }
      void unlink(path).catch((err: NodeJS.ErrnoException) => { if (err.code !== 'ENOENT') log.warn({ code: err.code, call_id: id }, 'an erased recording could not be deleted'); });
    }
  });
  const callbacks = edge.callback ? new CallbackRouter({ db, commands, runner, callback: edge.callback.bind(edge) }) : undefined;
  deliverer.start();
  const instances = new EngineInstances({ db, log, instanceId, leaseSeconds: config.CALL_INSTANCE_LEASE_SECONDS, runner });
  // listening for commands before the liveness row says this instance runs calls
  const registered = commands.start().then(() => instances.start()).catch((err) => log.warn({ err }, 'engine instance registration failed'));
  let closing: Promise<void> | undefined;
  return {
    calls, runner, outbox, secrets, deliverer, signer, pool, instances, commands,
    mediaUpgrade(carrier, req, socket, head) {
      if (carrier === 'browser') browserLeg(req, socket, head);
      else if (carrier === 'operator') operatorLeg(req, socket, head);
      else if (carrier === edge.name) edge.mediaUpgrade(req, socket, head);
      else refuseUpgrade(socket, 'not_found', `no ${carrier} carrier here (CARRIER is not ${carrier})`);
    },
    carrierCallback: (carrier, hook, req) => (carrier === edge.name ? callbacks?.route(hook, req) : undefined),
    async simulateInbound(tenantId, o) {
      const sim = adapters.carrier === d.adapters.carrier && !live ? d.adapters.simCarrier : undefined;
      if (!sim) throw new ApiError('conflict', 'only the simulator places inbound calls: with a live carrier, call the number');
      if ((await calls.inboundTenantOf(o.to)) !== tenantId) throw new ApiError('not_found', `${o.to} takes no calls for this tenant (PUT /v1/inbound-numbers/{number})`);
      const row = await calls.acceptInbound({ to: o.to, from: o.from, carrierCallId: '' }, { throwRefusals: true });
      if (!row) throw new ApiError('not_found', `${o.to} takes no calls`);
      const handle = runner.startInbound(row);
      // the simulated lead's line connects to our media socket as a carrier's stream would
      void sim.placeCall({ callId: row.id, tenantId, to: o.from, mediaUrl: mediaUrl(), parameters: runner.streamParameters(row) }, { timeoutMs: config.ADAPTER_TIMEOUT_MS })
        .then((r) => { if (r.outcome === 'answered' || r.outcome === 'voicemail') handle.carrierCallId(r.carrierCallId); else runner.hangup(row.id, 'caller_hangup'); },
          () => runner.hangup(row.id, 'caller_hangup'));
      return toRecord(row, recordingUrl);
    },
    async startBrowserCall(tenantId, o) {
      const row = await calls.acceptBrowser(tenantId, o);
      runner.startInbound(row);
      const limit = setTimeout(() => runner.hangup(row.id, 'max_duration'), BROWSER_CALL_MAX_MS);
      limit.unref();
      browserLimits.set(row.id, limit);
      // the leg must reach this instance, as a carrier's media does: its own address
      return { call: toRecord(row, recordingUrl), token: runner.streamParameters(row)[STREAM_TOKEN_PARAMETER], mediaUrl: mediaUrlOf(instanceBaseUrl(), 'browser') };
    },
    sendDigits: (callId, digits) => runner.sendDigits(callId, digits),
    overrideAdapters(o) {
      const before = { ...adapters };
      const wrapped = withDefaultTimeouts({ ...adapters, ...o }, config.ADAPTER_TIMEOUT_MS);
      Object.assign(adapters, Object.fromEntries((Object.keys(o) as Array<keyof AdapterSet>).filter((k) => o[k]).map((k) => [k, wrapped[k]])));
      return () => { Object.assign(adapters, before); };
    },
    recordingPathOf: (callId) => store.pathOf(callId),
    async recordingFor(callId) {
      const path = await recordingPathOf(db, callId);
      return path ? store.read(path) : undefined;
    },
    close: () => (closing ??= (async () => {
      await runner.close();
      await registered;
      await instances.close();
      await commands.close();
      // a carrier socket no call is attached to any more (e.g. it connected after its call gave up) goes too
      await edge.close();
      browserLeg.closeAll();
      operatorLeg.closeAll();
      for (const t of browserLimits.values()) clearTimeout(t);
      await deliverer.close();
      if (ownPool) await pool.close();
    })()),
  };
}
