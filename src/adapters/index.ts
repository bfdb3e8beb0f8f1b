/**
 * The adapter set the call pipeline uses: per adapter, a gRPC client (ADAPTER_<NAME>_URL = host:port of an
 * adapter server), else the live provider the settings select (STT_PROVIDER, DIALOG_PROVIDER, TTS_PROVIDER:
 * src/providers), else the in-process simulator. Every call gets the ADAPTER_TIMEOUT_MS deadline unless it brings
 * its own; a remote or live dialog model falls back to the scripted engine (CreateAdaptersOptions.dialogFallback).
 * The carrier is the simulator or a gRPC client here; live carriers are wired by the call engine.
 * close() closes the gRPC channels and the providers, once.
 */
import type { Config } from '../config.js';
import { createLogger, type Logger } from '../log.js';
import { selectSlot, type Slot } from '../providers/catalog.js';
import { DIALOG_PROVIDERS, STT_PROVIDERS, TTS_PROVIDERS } from '../providers/index.js';
import { ScriptedDialog } from '../dialog/scripted_dialog.js';
import { FallbackDialog } from '../dialog/fallback.js';
import { withDefaultTimeouts } from './defaults.js';
import { GrpcCarrier } from './grpc/carrier.js';
import { GrpcDialog } from './grpc/dialog.js';
import { GrpcStt } from './grpc/stt.js';
import { GrpcTts } from './grpc/tts.js';
import { SimCarrier, type SimCarrierOptions } from './sim/carrier.js';
import { simCallees } from './sim/callees.js';
import { SimStt } from './sim/stt.js';
import { SimTts } from './sim/tts.js';
import type { AdapterSet, TextToSpeechAdapter } from './types.js';
import { OfflineTts } from '../speech/voice/tts.js';
import { OfflineStt } from '../speech/ears/stt.js';
import { warmEars } from '../speech/pool.js';
import type { SimSpeech } from './sim/callee_voice.js';

export * from './types.js';
export { SIM_NUMBERS, simNumberFor, type SimNumber, type SimScenario } from './sim_numbers.js';
export { SimulatedCallee, type CalleePersona, type CalleeReply, type CalleeInterjection } from './sim/callee.js';
export { CalleeEar, type EarEvent } from './sim/callee_ear.js';
export { SimCarrier, type SimCarrierOptions } from './sim/carrier.js';
export { simCallees, type SimCallees } from './sim/callees.js';
export type { SimSpeech } from './sim/callee_voice.js';
export { SimStt } from './sim/stt.js';
export { SimTts } from './sim/tts.js';
export { ScriptedDialog } from '../dialog/scripted_dialog.js';
export { startAdapterServer, type AdapterServer } from './grpc/server.js';
export { GrpcCarrier, GrpcStt, GrpcDialog, GrpcTts };

export type AdapterName = keyof AdapterSet;
export type AdapterConfig = Pick<Config, 'ADAPTER_CARRIER_URL' | 'ADAPTER_STT_URL' | 'ADAPTER_DIALOG_URL' | 'ADAPTER_TTS_URL' | 'ADAPTER_TIMEOUT_MS'>
  & Partial<Config>;

export interface AdapterRuntime extends AdapterSet {
  modes: Record<AdapterName, 'in_process' | 'grpc' | 'live'>;
  /** the in-process simulated carrier when the carrier is in-process: subscribe with simCarrier.onAnswered(…) */
  simCarrier?: SimCarrier;
  /**
   * The offline voice (src/speech/voice), when the text-to-speech slot is the simulator: the demo's reply audio, also
   * with SIM_SPEECH=tones (where calls speak tone code).
   */
  voice?: TextToSpeechAdapter;
  /**
   * Loads the offline recogniser (when the speech-to-text slot is the simulator) outside any turn's deadline: its
   * first load takes seconds on a busy machine, longer than a turn may wait.
   */
  warmEars?(): Promise<unknown>;
  /** the default deadline of each adapter call (ADAPTER_TIMEOUT_MS) */
  timeoutMs?: number;
  close(): Promise<void>;
}

export interface CreateAdaptersOptions {
  simCarrier?: SimCarrierOptions;
  /** clock of the in-process dialog for relative dates when a turn carries no `now` */
  clock?: () => Date;
  /** what the simulator speaks and hears on calls: 'offline' (default) the offline voice and ears, 'tones' SimVoice */
  speech?: SimSpeech;
  /** replaces the in-process implementation of an adapter (tests, custom providers) */
  overrides?: Partial<AdapterSet>;
  /** told when SERVICE_MODE=live runs a simulator in-process, and when the dialog fallback steps in */
  warn?: (msg: string) => void;
  /** the logger live providers log through (default: silent) */
  log?: Logger;
  /**
   * A remote dialog model that fails or times out before replying is replaced for that turn by the scripted
   * engine; one that fails mid-reply ends with a spoken apology and an escalation. Default true; false lets
   * dialog errors reach the caller.
   */
  dialogFallback?: boolean;
}

/**
 * The in-process simulator set: the offline voice and grammar ears (src/speech) with callees that speak for real, or
 * with speech 'tones' SimVoice tone code throughout (SimTts, SimStt, callees that decode it).
 */
export function createSimAdapters(opts: CreateAdaptersOptions = {}): AdapterSet & { carrier: SimCarrier } {
  const tones = opts.speech === 'tones';
  return { carrier: new SimCarrier({ ...opts.simCarrier, speech: opts.speech ?? 'offline' }), stt: tones ? new SimStt() : new OfflineStt(),
    dialog: new ScriptedDialog({ clock: opts.clock }), tts: tones ? new SimTts() : new OfflineTts() };
}

export function createAdapters(config: AdapterConfig, opts: CreateAdaptersOptions = {}): AdapterRuntime {
  const timeoutMs = config.ADAPTER_TIMEOUT_MS ?? 3000;
  const grpcClients: Array<{ close(): void }> = [];
  const remote = <T extends { close(): void }>(client: T): T => { grpcClients.push(client); return client; };
  // the in-process simulated carrier has its callees dial our media socket; a remote carrier brings its own
  const liveCarrier = selectSlot(config as Record<string, unknown>, 'carrier').live;
  const callees = config.ADAPTER_CARRIER_URL || liveCarrier || opts.overrides?.carrier || opts.simCarrier?.callees ? undefined
    : simCallees({ timeScale: config.SIM_TIME_SCALE ?? 1, thread: config.SIM_CALLEE_THREAD ?? false });
  const sim = createSimAdapters({ ...opts, speech: opts.speech ?? config.SIM_SPEECH ?? 'offline', simCarrier: { timeScale: config.SIM_TIME_SCALE, ...opts.simCarrier, ...(callees ? { callees } : {}) } });
  const ctx = { config: config as Config, log: opts.log ?? createLogger('silent') };
  const live = <T>(slot: Slot, factories: Record<string, (c: typeof ctx) => T>): T | undefined => {
    const sel = selectSlot(config as Record<string, unknown>, slot);
    return sel.live ? factories[sel.provider!]?.(ctx) : undefined;
  };
  const providers = { stt: live('speech_to_text', STT_PROVIDERS), dialog: live('dialog_model', DIALOG_PROVIDERS), tts: live('text_to_speech', TTS_PROVIDERS) };
  const set: AdapterSet = {
    carrier: config.ADAPTER_CARRIER_URL ? remote(new GrpcCarrier(config.ADAPTER_CARRIER_URL, timeoutMs)) : opts.overrides?.carrier ?? sim.carrier,
    stt: config.ADAPTER_STT_URL ? remote(new GrpcStt(config.ADAPTER_STT_URL, timeoutMs)) : opts.overrides?.stt ?? providers.stt ?? sim.stt,
    dialog: config.ADAPTER_DIALOG_URL ? remote(new GrpcDialog(config.ADAPTER_DIALOG_URL, timeoutMs)) : opts.overrides?.dialog ?? providers.dialog ?? sim.dialog,
    tts: config.ADAPTER_TTS_URL ? remote(new GrpcTts(config.ADAPTER_TTS_URL, timeoutMs)) : opts.overrides?.tts ?? providers.tts ?? sim.tts,
  };
  const mode = (url: string | undefined, provider?: unknown) => (url ? 'grpc' as const : provider ? 'live' as const : 'in_process' as const);
  if (config.SERVICE_MODE === 'live' && !config.ADAPTER_DIALOG_URL && !providers.dialog && !opts.overrides?.dialog) {
    opts.warn?.('SERVICE_MODE=live with the scripted dialog engine: set DIALOG_PROVIDER=openai for a language model');
  }
  let closed = false;
  const timed = withDefaultTimeouts(set, timeoutMs);
  if ((config.ADAPTER_DIALOG_URL || providers.dialog) && opts.dialogFallback !== false) {
    timed.dialog = new FallbackDialog(timed.dialog, sim.dialog, {
      onFallback: (err, stage) => opts.warn?.(`dialog adapter ${err.code} (${stage}): scripted fallback used`),
    });
  }
  return {
    ...timed,
    modes: {
      carrier: mode(config.ADAPTER_CARRIER_URL), stt: mode(config.ADAPTER_STT_URL, providers.stt),
      dialog: mode(config.ADAPTER_DIALOG_URL, providers.dialog), tts: mode(config.ADAPTER_TTS_URL, providers.tts),
    },
    ...(set.carrier === sim.carrier ? { simCarrier: sim.carrier } : {}),
    ...(set.tts === sim.tts ? { voice: sim.tts instanceof OfflineTts ? sim.tts : new OfflineTts() } : {}),
    ...(set.stt === sim.stt ? { warmEars } : {}),
    timeoutMs,
    async close() {
      if (closed) return;
      closed = true;
      for (const c of grpcClients) c.close();
      for (const p of Object.values(providers)) await (p as { close?(): Promise<void> | void } | undefined)?.close?.();
      await callees?.close();
    },
  };
}
