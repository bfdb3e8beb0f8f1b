/**
 * Simulated carrier: decides the outcome from the destination number (sim_numbers.ts) after a short ring, and for
 * an answered (or voicemail) call has a simulated callee dial our media WebSocket like a real carrier's media
 * stream would (`callees`: in-process or on a thread of their own). Beside the audio it has a side channel no real
 * carrier has: `agentSaid` hands the callee the words of each agent sentence, so a persona can answer real speech
 * without recognising it (src/adapters/README.md). The rest of the service never knows the difference.
 */
import { randomHex } from '../../ids.js';
import { withDeadline, sleep } from '../deadline.js';
import { simNumberFor, type SimScenario } from '../sim_numbers.js';
import type { SimCallees } from './callees.js';
import type { SimSpeech } from './callee_voice.js';
import { warmEars, warmVoice } from '../../speech/pool.js';
import { AdapterError, type AdapterCallOptions, type CarrierAdapter, type PlaceCallRequest, type PlaceCallResult, type TransferDone, type TransferOptions } from '../types.js';

export interface SimCarrierOptions {
  /** ring time before an answer/busy/failed outcome, ms (simulated calls may run faster than real time) */
  ringMs?: number;
  /** ring time before giving up as no_answer, ms */
  noAnswerMs?: number;
  /** where the callees of answered calls run; none = outcomes only (tests of the carrier alone) */
  callees?: SimCallees;
  /** simulated callees speak this many times faster than real time */
  timeScale?: number;
  /** what simulated callees speak (SIM_SPEECH; default 'offline') */
  speech?: SimSpeech;
  onAnswered?: (req: PlaceCallRequest, result: PlaceCallResult) => void;
  onHangup?: (carrierCallId: string) => void;
  onTransfer?: (carrierCallId: string, target: string, leg: SimTransferLeg) => void;
}

/**
 * What the simulated carrier did for a transfer: cold, the caller went straight through; warm, the caller was
 * put on hold (hold audio) while the transfer leg was called and heard the summary, then the two were joined.
 */
export interface SimTransferLeg {
  target: string; mode: 'cold' | 'warm';
  /** warm: the caller heard hold audio until the human had heard the summary */
  callerHeldFor?: 'hold_audio';
  /** warm: the words the transfer leg heard before the caller was connected */
  summaryHeard?: string;
}

/** how many transfers the simulator remembers (oldest forgotten first) */
const KEPT_TRANSFERS = 1000;

type SimCallState = 'answered' | 'transferred';

const TRANSFER_TARGET = /^(\+[1-9]\d{6,14}|sips?:[^\s@]+@[^\s]+)$/;

export class SimCarrier implements CarrierAdapter {
  readonly #calls = new Map<string, { req: PlaceCallRequest; state: SimCallState }>();
  /** every transfer made, by our call id (kept after the call ends, for tests and the simulator's record) */
  readonly transfers = new Map<string, SimTransferLeg>();
  readonly #answered: Array<(req: PlaceCallRequest, result: PlaceCallResult) => void> = [];
  constructor(private readonly opts: SimCarrierOptions = {}) {
    if (opts.onAnswered) this.#answered.push(opts.onAnswered);
  }

  /** Subscribes to answered and voicemail calls: the host starts the simulated callee's media socket here. */
  onAnswered(listener: (req: PlaceCallRequest, result: PlaceCallResult) => void): void {
    this.#answered.push(listener);
  }

  placeCall(req: PlaceCallRequest, opts?: AdapterCallOptions): Promise<PlaceCallResult> {
    return withDeadline('carrier', opts, async (signal) => {
      if (!/^\+[1-9]\d{6,14}$/.test(req.to)) throw new AdapterError('carrier', 'invalid', `not an E.164 number: ${req.to}`);
      const sim = simNumberFor(req.to);
      await sleep(sim.outcome === 'no_answer' ? this.opts.noAnswerMs ?? 200 : this.opts.ringMs ?? 20, signal);
      const result: PlaceCallResult = {
        carrierCallId: `CA${randomHex(16)}`,
        outcome: sim.outcome,
        detail: sim.scenario,
      };
      if (result.outcome === 'answered' || result.outcome === 'voicemail') {
        // calls that speak for real: the phone rings until the offline voice and ears are loaded (seconds, once), so
        // a cold start never eats into the call's first turns' deadlines
        if (this.opts.callees && (this.opts.speech ?? 'offline') === 'offline') await untilAborted(Promise.all([warmVoice(), warmEars()]), signal);
        this.#calls.set(result.carrierCallId, { req, state: 'answered' });
        this.opts.callees?.launch({ mediaUrl: req.mediaUrl, callId: req.callId, carrierCallId: result.carrierCallId,
          scenario: (req.scenario ?? sim.scenario) as SimScenario, parameters: req.parameters, timeScale: this.opts.timeScale ?? 1,
          speech: this.opts.speech ?? 'offline', ...(req.calleeName ? { calleeName: req.calleeName } : {}) });
        for (const l of this.#answered) l(req, result);
      }
      return result;
    });
  }

  /** The side channel: the agent of call `callId` (ours, not the carrier's id) is saying `text`; its audio follows. */
  agentSaid(callId: string, text: string): void { this.opts.callees?.tell(callId, text); }

  hangup(carrierCallId: string, opts?: AdapterCallOptions): Promise<void> {
    return withDeadline('carrier', opts, async () => {
      // idempotent: an unknown id is a call that already ended (the carrier forgets ended calls)
      if (!this.#calls.delete(carrierCallId)) return;
      this.opts.onHangup?.(carrierCallId);
    });
  }

  transfer(carrierCallId: string, target: string, opts?: TransferOptions): Promise<TransferDone> {
    return withDeadline('carrier', opts, async () => {
      const call = this.#calls.get(carrierCallId);
      if (!call) throw new AdapterError('carrier', 'failed', `carrier call ${carrierCallId} is not active`);
      if (!TRANSFER_TARGET.test(target)) throw new AdapterError('carrier', 'invalid', 'transfer target must be E.164 or a SIP URI');
      const warm = opts?.mode === 'warm';
      if (warm && !opts?.summary?.trim()) throw new AdapterError('carrier', 'invalid', 'a warm transfer needs a summary to say');
      const leg: SimTransferLeg = warm ? { target, mode: 'warm', callerHeldFor: 'hold_audio', summaryHeard: opts!.summary!.trim() } : { target, mode: 'cold' };
      call.state = 'transferred';
      this.transfers.set(call.req.callId, leg);
      if (this.transfers.size > KEPT_TRANSFERS) this.transfers.delete(this.transfers.keys().next().value!);
      this.opts.onTransfer?.(carrierCallId, target, leg);
      return { mode: leg.mode };
    });
  }

  /** For tests and the simulator: the state of an active call (undefined once hung up). */
  stateOf(carrierCallId: string): SimCallState | undefined {
    return this.#calls.get(carrierCallId)?.state;
  }
}

/** Waits for `work` (a failure is the next step's to meet), or until the signal aborts. */
function untilAborted(work: Promise<unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    signal.addEventListener('abort', () => resolve(), { once: true });
    work.then(() => resolve(), () => resolve());
  });
}
