/**
 * How every live carrier places a call, around its own create request: the call is tracked before the request
 * (a callback may come before its answer), the request is sent, and placeCall resolves on the carrier's news (the
 * answer, an end before it, the ring timeout) or rejects as canceled on a hang-up. A hang-up lets the create
 * answer first (CREATE_ANSWER_GRACE_MS), so a call the carrier made anyway is canceled rather than left ringing;
 * so is one whose create answers after our ring timeout gave up on it. A refused create ends the call `failed`
 * with the carrier's words; one that never reached the carrier too.
 */
import { abortAfterGrace } from '../adapters/deadline.js';
import { AdapterError, type PlaceCallOptions, type PlaceCallResult } from '../adapters/types.js';
import type { Logger } from '../log.js';
import type { CallTracker, CarrierCall } from './call_tracker.js';
import { CREATE_ANSWER_GRACE_MS } from './rest.js';

/** What the carrier said to the create: the ids it gave the call, or its refusal (kept as the carrier status). */
export type Created = { carrierCallId?: string; requestId?: string } | { refused: string };

export interface Placing {
  /** our call id */
  callId: string;
  /** per-call data the carrier's callbacks need (the media URL, the stream token) */
  data: Record<string, string>;
  /** ends the call as no_answer when nothing answered it in this long, ms */
  ringTimeoutMs: number;
  /** the create request; `signal` aborts it (a hang-up, after the grace) */
  create(signal: AbortSignal): Promise<Created>;
  /** hangs up (or cancels) a call the carrier named: we gave up on it while it rang */
  cancel(call: CarrierCall): Promise<void>;
}

export async function placeTracked(tracker: CallTracker, p: Placing, opts: PlaceCallOptions, log: Logger): Promise<PlaceCallResult> {
  let named = false;
  let gaveUp = false;
  const { call, result } = tracker.track(p.callId, {
    data: p.data, onEvent: opts.onEvent, signal: opts.signal, ringTimeoutMs: p.ringTimeoutMs,
    // a call the carrier has not named yet is canceled once its create answers (below)
    cancel: async (c) => { gaveUp = true; if (named) await p.cancel(c); },
  });
  if (opts.signal?.aborted) return result; // hung up before we asked: nothing to create (result is rejected)
  const create = new AbortController();
  const disposeGrace = abortAfterGrace(opts.signal, CREATE_ANSWER_GRACE_MS, create);
  let r: Created | AdapterError;
  try {
    r = await p.create(create.signal);
  } catch (err) {
    r = err instanceof AdapterError ? err : new AdapterError('carrier', 'unavailable', (err as Error).message);
  } finally {
    disposeGrace();
  }
  if (r instanceof AdapterError) {
    if (r.code !== 'canceled') {
      log.warn({ call_id: p.callId, err: r.message }, 'the create request did not reach the carrier');
      tracker.ended(p.callId, 'failed', r.message);
    }
  } else if ('refused' in r) {
    log.warn({ call_id: p.callId, carrier_status: r.refused }, 'the carrier refused the call');
    tracker.ended(p.callId, 'failed', r.refused);
  } else {
    if (r.carrierCallId) call.carrierCallId ??= r.carrierCallId;
    if (r.requestId) call.requestId = r.requestId;
    named = true;
    if (gaveUp) void p.cancel(call).catch(() => { /* the carrier ends it on its own ring timeout */ });
  }
  return result;
}
