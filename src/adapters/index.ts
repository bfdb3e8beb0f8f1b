/**
 * The adapter set the call pipeline uses: per adapter, the in-process simulator or a gRPC client, chosen by
 * config (ADAPTER_<NAME>_URL = host:port of an adapter server; unset = in-process). Every call gets the
 * ADAPTER_TIMEOUT_MS deadline unless it brings its own; a remote dialog model falls back to the scripted engine
 * (see CreateAdaptersOptions.dialogFallback). close() closes the gRPC channels, once.
 */
import type { Config } from '../config.js';
import { ScriptedDialog } from '../dialog/scripted_dialog.js';
import { FallbackDialog } from '../dialog/fallback.js';
import { withDefaultTimeouts } from './defaults.js';
import { GrpcCarrier } from './grpc/carrier.js';
import { GrpcDialog } from './grpc/dialog.js';
import { GrpcStt } from './grpc/stt.js';
import { GrpcTts } from './grpc/tts.js';
import { SimCarrier, type SimCarrierOptions } from './sim/carrier.js';
import { SimStt } from './sim/stt.js';
import { SimTts } from './sim/tts.js';
import type { AdapterSet } from './types.js';

export * from './types.js';
export { SIM_NUMBERS, simNumberFor, type SimNumber, type SimScenario } from './sim_numbers.js';
export { SimulatedCallee, type CalleePersona, type CalleeReply, type CalleeInterjection } from './sim/callee.js';
export { CalleeEar, type EarEvent } from './sim/callee_ear.js';
export { SimCarrier, type SimCarrierOptions } from './sim/carrier.js';
export { SimStt } from './sim/stt.js';
export { SimTts } from './sim/tts.js';
export { ScriptedDialog } from '../dialog/scripted_dialog.js';
export { startAdapterServer, type AdapterServer } from './grpc/server.js';
export { GrpcCarrier, GrpcStt, GrpcDialog, GrpcTts };

export type AdapterName = keyof AdapterSet;
export type AdapterConfig = Pick<Config, 'ADAPTER_CARRIER_URL' | 'ADAPTER_STT_URL' | 'ADAPTER_DIALOG_URL' | 'ADAPTER_TTS_URL' | 'ADAPTER_TIMEOUT_MS'>
  & Partial<Pick<Config, 'SERVICE_MODE'>>;

export interface AdapterRuntime extends AdapterSet {
  modes: Record<AdapterName, 'in_process' | 'grpc'>;
  /** the in-process simulated carrier when the carrier is in-process: subscribe with simCarrier.onAnswered(…) */
  simCarrier?: SimCarrier;
  close(): Promise<void>;
}

export interface CreateAdaptersOptions {
  simCarrier?: SimCarrierOptions;
  /** clock of the in-process dialog for relative dates when a turn carries no `now` */
  clock?: () => Date;
  /** replaces the in-process implementation of an adapter (tests, custom providers) */
  overrides?: Partial<AdapterSet>;
  /** told when SERVICE_MODE=live runs a simulator in-process, and when the dialog fallback steps in */
  warn?: (msg: string) => void;
  /**
   * A remote dialog model that fails or times out before replying is replaced for that turn by the scripted
   * engine; one that fails mid-reply ends with a spoken apology and an escalation. Default true; false lets
   * dialog errors reach the caller.
   */
  dialogFallback?: boolean;
}

/** The in-process simulator set. */
export function createSimAdapters(opts: CreateAdaptersOptions = {}): AdapterSet & { carrier: SimCarrier } {
  return { carrier: new SimCarrier(opts.simCarrier), stt: new SimStt(), dialog: new ScriptedDialog({ clock: opts.clock }), tts: new SimTts() };
}

export function createAdapters(config: AdapterConfig, opts: CreateAdaptersOptions = {}): AdapterRuntime {
  const timeoutMs = config.ADAPTER_TIMEOUT_MS ?? 3000;
  const grpcClients: Array<{ close(): void }> = [];
  const remote = <T extends { close(): void }>(client: T): T => { grpcClients.push(client); return client; };
  const sim = createSimAdapters(opts);
  const set: AdapterSet = {
    carrier: config.ADAPTER_CARRIER_URL ? remote(new GrpcCarrier(config.ADAPTER_CARRIER_URL, timeoutMs)) : opts.overrides?.carrier ?? sim.carrier,
    stt: config.ADAPTER_STT_URL ? remote(new GrpcStt(config.ADAPTER_STT_URL, timeoutMs)) : opts.overrides?.stt ?? sim.stt,
    dialog: config.ADAPTER_DIALOG_URL ? remote(new GrpcDialog(config.ADAPTER_DIALOG_URL, timeoutMs)) : opts.overrides?.dialog ?? sim.dialog,
    tts: config.ADAPTER_TTS_URL ? remote(new GrpcTts(config.ADAPTER_TTS_URL, timeoutMs)) : opts.overrides?.tts ?? sim.tts,
  };
  const mode = (url: string | undefined) => (url ? 'grpc' as const : 'in_process' as const);
  if (config.SERVICE_MODE === 'live') {
    const simulated = ([['carrier', config.ADAPTER_CARRIER_URL], ['stt', config.ADAPTER_STT_URL], ['tts', config.ADAPTER_TTS_URL]] as const)
      .filter(([name, url]) => !url && !opts.overrides?.[name]).map(([name]) => name);
    if (simulated.length) opts.warn?.(`SERVICE_MODE=live but ${simulated.join(', ')} run the in-process simulator: set ADAPTER_<NAME>_URL to an adapter server`);
  }
  let closed = false;
  const timed = withDefaultTimeouts(set, timeoutMs);
  if (config.ADAPTER_DIALOG_URL && opts.dialogFallback !== false) {
    timed.dialog = new FallbackDialog(timed.dialog, sim.dialog, {
      onFallback: (err, stage) => opts.warn?.(`dialog adapter ${err.code} (${stage}): scripted fallback used`),
    });
  }
  return {
    ...timed,
    modes: {
      carrier: mode(config.ADAPTER_CARRIER_URL), stt: mode(config.ADAPTER_STT_URL),
      dialog: mode(config.ADAPTER_DIALOG_URL), tts: mode(config.ADAPTER_TTS_URL),
    },
    ...(set.carrier === sim.carrier ? { simCarrier: sim.carrier } : {}),
    async close() {
      if (closed) return;
      closed = true;
      for (const c of grpcClients) c.close();
    },
  };
}
