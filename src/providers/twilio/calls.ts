/**
 * The calls this instance placed through Twilio, by our call id (in every callback URL) and by CallSid, and what
 * Twilio's news does to each: status callbacks and the AMD verdict settle placeCall (answered, or how it ended
 * unanswered) and, once answered, become the runner's CarrierCallEvents. Repeats and older news change nothing.
 */
import type { CarrierCallEvent, PlaceCallResult } from '../../adapters/types.js';
import { advances, carrierStatusOf, isFinalStatus, isTwilioCallStatus, machineEvent, unansweredOutcome, type TwilioCallStatus } from './status.js';

export interface TrackedCall {
  callId: string;
  sid?: string;
  /** the furthest status Twilio reported */
  status?: TwilioCallStatus;
  answered: boolean;
  amdSeen: boolean;
  /** bridged to a human (a transfer): the call is theirs, our hang-up leaves it alone */
  transferred: boolean;
  onEvent?: (e: CarrierCallEvent) => void;
  /** resolves placeCall; undefined once it has */
  settle?: (r: PlaceCallResult) => void;
}

export class TrackedCalls {
  readonly #byCallId = new Map<string, TrackedCall>();
  readonly #bySid = new Map<string, TrackedCall>();

  /** Tracks a call about to be created (a callback may come before the create's answer); `result` is placeCall's. */
  open(callId: string, onEvent?: (e: CarrierCallEvent) => void): { call: TrackedCall; result: Promise<PlaceCallResult> } {
    const call: TrackedCall = { callId, answered: false, amdSeen: false, transferred: false, onEvent };
    const result = new Promise<PlaceCallResult>((resolve) => { call.settle = (r) => { call.settle = undefined; resolve(r); }; });
    this.#byCallId.set(callId, call);
    return { call, result };
  }

  created(call: TrackedCall, sid: string): void {
    call.sid = sid;
    this.#bySid.set(sid, call);
  }

  bySid(sid: string): TrackedCall | undefined { return this.#bySid.get(sid); }

  /** The call a callback is about: named by its URL's call id, and the same CallSid when we know it. */
  find(callId: string, callSid: string | undefined): TrackedCall | undefined {
    const call = this.#byCallId.get(callId) ?? (callSid ? this.#bySid.get(callSid) : undefined);
    return call && !(call.sid && callSid && call.sid !== callSid) ? call : undefined;
  }

  status(call: TrackedCall, p: Record<string, string>): void {
    const s = p.CallStatus ?? '';
    if (!isTwilioCallStatus(s) || !advances(call.status, s)) return; // a repeat, or older than what we know
    call.status = s;
    call.sid ??= p.CallSid;
    const carrierStatus = carrierStatusOf(p);
    if (s === 'ringing') { if (!call.answered) call.onEvent?.({ type: 'ringing' }); return; }
    if (s === 'in-progress') { this.answered(call, carrierStatus); return; }
    if (!isFinalStatus(s)) return;
    if (call.settle) call.settle({ carrierCallId: call.sid ?? '', outcome: unansweredOutcome(s), carrierStatus });
    else call.onEvent?.({ type: 'ended', carrierStatus });
    this.forget(call);
  }

  amd(call: TrackedCall, p: Record<string, string>): void {
    if (call.amdSeen) return;
    call.amdSeen = true;
    call.sid ??= p.CallSid;
    this.answered(call, 'in-progress'); // a verdict means the call was answered, whatever came first
    const e = machineEvent(p.AnsweredBy ?? '');
    if (e) call.onEvent?.(e);
  }

  answered(call: TrackedCall, carrierStatus: string): void {
    if (call.answered) return;
    call.answered = true;
    call.settle?.({ carrierCallId: call.sid ?? '', outcome: 'answered', carrierStatus });
  }

  forget(call: TrackedCall): void {
    if (this.#byCallId.get(call.callId) === call) this.#byCallId.delete(call.callId);
    if (call.sid && this.#bySid.get(call.sid) === call) this.#bySid.delete(call.sid);
  }

  clear(): void { this.#byCallId.clear(); this.#bySid.clear(); }
}
