/**
 * Twilio's call progress (status callbacks, answering-machine verdicts) onto the call tracker. Callbacks may repeat
 * and arrive in any order, so each status has a rank: news below what is known is old news, and an end is final
 * (the tracker keeps to the same rule).
 */
import type { CarrierCallEvent, CarrierOutcome } from '../../adapters/types.js';
import type { CallTracker, CarrierCall, CarrierEnd } from '../call_tracker.js';

/** CallStatus values of the status callback (README.md, "Callbacks"). */
export type TwilioCallStatus = 'queued' | 'initiated' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'failed' | 'no-answer' | 'canceled';

const RANK: Record<TwilioCallStatus, number> = { queued: 0, initiated: 1, ringing: 2, 'in-progress': 3, completed: 4, busy: 4, failed: 4, 'no-answer': 4, canceled: 4 };

export const isTwilioCallStatus = (s: string): s is TwilioCallStatus => s in RANK;
export const isFinalStatus = (s: TwilioCallStatus): boolean => RANK[s] === 4;
/** true when `next` tells something `known` did not (a repeat or an older status does not) */
export const advances = (known: TwilioCallStatus | undefined, next: TwilioCallStatus): boolean => known === undefined || RANK[next] > RANK[known];

/**
 * How a call that ended before it was answered went, as placeCall's outcome. `canceled` without our asking
 * (someone else's API request) and `completed` before `in-progress` (its answer callback lost) end it as failed.
 */
export function unansweredOutcome(s: TwilioCallStatus): CarrierOutcome {
  switch (s) {
    case 'busy': return 'busy';
    case 'no-answer': return 'no_answer';
    default: return 'failed';
  }
}

/** The carrier's own word kept on the call: its status, with the SIP response or error code when it gave one. */
export function carrierStatusOf(p: Record<string, string>): string {
  const extra = [p.SipResponseCode && `sip ${p.SipResponseCode}`, p.ErrorCode && `error ${p.ErrorCode}`].filter(Boolean).join(', ');
  return extra ? `${p.CallStatus} (${extra})` : p.CallStatus;
}

/**
 * An asynchronous AMD verdict (AnsweredBy) as news for the runner. With MachineDetection=DetectMessageEnd the
 * machine verdicts come once the greeting is over (the beep: leave the message now); machine_start (Enable) and a
 * fax come at once, with no beep to wait for. human and unknown: nothing to do.
 */
export function machineEvent(answeredBy: string): CarrierCallEvent | undefined {
  const carrierStatus = `answered_by ${answeredBy}`;
  if (/^machine_end_(beep|silence|other)$/.test(answeredBy)) return { type: 'machine', beepDone: true, carrierStatus };
  if (answeredBy === 'machine_start' || answeredBy === 'fax') return { type: 'machine', beepDone: false, carrierStatus };
  return undefined;
}

/** A status callback: ringing, the answer, or the end (`completed` before any answer ends it as failed). */
export function applyStatus(calls: CallTracker, call: CarrierCall, p: Record<string, string>): void {
  const s = p.CallStatus ?? '';
  if (!isTwilioCallStatus(s)) return;
  const sid = p.CallSid || undefined;
  if (s === 'ringing') calls.ringing(call.callId, sid);
  else if (s === 'in-progress') calls.answered(call.callId, sid, carrierStatusOf(p));
  else if (isFinalStatus(s)) calls.ended(call.callId, s === 'completed' ? 'completed' : unansweredOutcome(s) as CarrierEnd, carrierStatusOf(p), 'failed');
}

/** An asynchronous AMD verdict: the call was answered, whatever came first; a machine is told to the runner. */
export function applyAmd(calls: CallTracker, call: CarrierCall, p: Record<string, string>): void {
  calls.answered(call.callId, p.CallSid || undefined, 'in-progress');
  const e = machineEvent(p.AnsweredBy ?? '');
  if (e?.type === 'machine') calls.machine(call.callId, e.beepDone, e.carrierStatus);
}
