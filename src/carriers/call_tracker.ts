/**
 * The one call tracker of every live carrier: the calls it has placed and not yet heard the end of, and what its
 * callbacks say about them. The carrier's news arrives over HTTP, possibly twice and in any order (a hang-up
 * report before the answer, a late ringing), so every report moves a call forward only: ringing < answered <
 * ended, each told once. placeCall resolves on the answer or an end before it; a ring timeout ends a call nothing
 * answers, whatever the carrier says or fails to say.
 */
import { AdapterError, type CarrierCallEvent, type CarrierOutcome, type PlaceCallResult } from '../adapters/types.js';

export type CarrierEnd = Exclude<CarrierOutcome, 'answered' | 'voicemail'> | 'completed';

export interface CarrierCall {
  readonly callId: string;
  /** the carrier's id of the call (Plivo CallUUID, Exotel CallSid), once known */
  carrierCallId?: string;
  /** what the carrier acknowledged placing (Plivo request_uuid), before it knows the call's own id */
  requestId?: string;
  /** per-call data of the carrier implementation (the media URL, the stream parameters) */
  readonly data: Record<string, string>;
  stage: 'placing' | 'ringing' | 'answered' | 'ended';
  /** bridged (or being bridged) to a human: the call is theirs, our hang-up leaves it alone */
  transferTarget?: string;
}

interface Entry extends CarrierCall {
  resolve(r: PlaceCallResult): void;
  reject(e: unknown): void;
  settled: boolean;
  onEvent?(e: CarrierCallEvent): void;
  timer?: NodeJS.Timeout;
  machineTold: boolean;
}

export interface TrackOptions {
  data: Record<string, string>;
  onEvent?(e: CarrierCallEvent): void;
  signal?: AbortSignal;
  /** ends the call as no_answer when nothing answered it in this long, ms */
  ringTimeoutMs: number;
  /** hangs up (or cancels) the call at the carrier: our ring timeout fired, or the dial was aborted */
  cancel(call: CarrierCall): Promise<void>;
}

const RANK = { placing: 0, ringing: 1, answered: 2, ended: 3 } as const;

/**
 * How long a carrier still calls about a call after our end of it (its last status callback, a flow's applets after
 * the stream closed): the tracker answers for it that long, and other instances forward such callbacks here.
 */
export const CARRIER_LAST_WORD_MS = 60_000;

export class CallTracker {
  readonly #calls = new Map<string, Entry>();

  /** Tracks a call about to be placed; the promise settles on its answer, its end, the ring timeout or an abort. */
  track(callId: string, o: TrackOptions): { call: CarrierCall; result: Promise<PlaceCallResult> } {
    let resolve!: (r: PlaceCallResult) => void;
    let reject!: (e: unknown) => void;
    const result = new Promise<PlaceCallResult>((res, rej) => { resolve = res; reject = rej; });
    result.catch(() => {}); // a hang-up may reject it while placeCall still awaits the create; placeCall returns it after
    const e: Entry = { callId, data: o.data, stage: 'placing', resolve, reject, settled: false, onEvent: o.onEvent, machineTold: false };
    this.#calls.set(callId, e);
    const giveUp = (why: 'ring_timeout' | 'canceled') => {
      if (e.settled) return;
      void o.cancel(e).catch(() => { /* the carrier ends it on its own ring timeout */ });
      if (why === 'canceled') {
        this.#settle(e, () => e.reject(new AdapterError('carrier', 'canceled', 'dial canceled')));
        this.#calls.delete(callId);
      } else this.ended(callId, 'no_answer', 'ring_timeout');
    };
    e.timer = setTimeout(() => giveUp('ring_timeout'), o.ringTimeoutMs);
    e.timer.unref();
    if (o.signal?.aborted) giveUp('canceled');
    else o.signal?.addEventListener('abort', () => giveUp('canceled'), { once: true });
    return { call: e, result };
  }

  get(callId: string): CarrierCall | undefined { return this.#calls.get(callId); }

  /** A call that came in and that we answered (inbound): tracked for its news and for our hang-up or transfer. */
  adopt(callId: string, o: { carrierCallId: string; data?: Record<string, string>; onEvent?(e: CarrierCallEvent): void }): CarrierCall {
    const e: Entry = { callId, carrierCallId: o.carrierCallId, data: o.data ?? {}, stage: 'answered', resolve: () => {}, reject: () => {},
      settled: true, onEvent: o.onEvent, machineTold: false };
    this.#calls.set(callId, e);
    return e;
  }

  /**
   * The call a callback is about: named by our call id (in the URL we gave the carrier) and, when both sides know
   * it, the same carrier id; a callback that names no call we hold is looked up by the carrier's id.
   */
  find(callId: string | undefined, carrierCallId: string | undefined): CarrierCall | undefined {
    const e = (callId ? this.#calls.get(callId) : undefined) ?? (carrierCallId ? this.byCarrierId(carrierCallId) : undefined);
    return e && !(e.carrierCallId && carrierCallId && e.carrierCallId !== carrierCallId) ? e : undefined;
  }

  byCarrierId(carrierCallId: string): CarrierCall | undefined {
    for (const e of this.#calls.values()) if (e.carrierCallId === carrierCallId || e.requestId === carrierCallId) return e;
    return undefined;
  }

  ringing(callId: string, carrierCallId?: string): void {
    const e = this.#advance(callId, 'ringing', carrierCallId);
    if (e) e.onEvent?.({ type: 'ringing' });
  }

  /** The callee picked up: placeCall resolves (once) with the carrier's id of the call. */
  answered(callId: string, carrierCallId: string | undefined, carrierStatus: string): boolean {
    const e = this.#advance(callId, 'answered', carrierCallId);
    if (!e) return this.#calls.get(callId)?.stage === 'answered';
    this.#settle(e, () => e.resolve({ carrierCallId: e.carrierCallId ?? e.requestId ?? callId, outcome: 'answered', carrierStatus }));
    return true;
  }

  /** Answering-machine detection said a machine took the call (told once, only while it runs). */
  machine(callId: string, beepDone: boolean, carrierStatus: string): void {
    const e = this.#calls.get(callId);
    if (!e || e.stage !== 'answered' || e.machineTold) return;
    e.machineTold = true;
    e.onEvent?.({ type: 'machine', beepDone, carrierStatus });
  }

  /**
   * The carrier's last word: before an answer it is the call's outcome, after it the callee is gone. A call that
   * "completed" without being answered (or whose answer we never heard) ends as `neverAnswered`.
   */
  ended(callId: string, end: CarrierEnd, carrierStatus: string, neverAnswered: Exclude<CarrierEnd, 'completed'> = 'no_answer'): void {
    const e = this.#calls.get(callId);
    if (!e) return;
    const wasAnswered = e.stage === 'answered';
    if (!this.#advance(callId, 'ended')) return;
    this.#calls.delete(callId);
    if (wasAnswered) { e.onEvent?.({ type: 'ended', carrierStatus }); return; }
    const outcome: CarrierOutcome = end === 'completed' ? neverAnswered : end;
    this.#settle(e, () => e.resolve({ carrierCallId: e.carrierCallId ?? e.requestId ?? callId, outcome, carrierStatus, detail: carrierStatus }));
  }

  /** Stops tracking a call we hung up, once its carrier has had time to send its last report. */
  forgetLater(callId: string, ms = CARRIER_LAST_WORD_MS): void {
    setTimeout(() => this.#calls.delete(callId), ms).unref();
  }

  /** Shutdown: every call still waiting is given up (its dial signal ends it at the carrier). */
  close(): void {
    for (const e of this.#calls.values()) this.#settle(e, () => e.reject(new AdapterError('carrier', 'canceled', 'carrier closed')));
    this.#calls.clear();
  }

  #advance(callId: string, to: Exclude<CarrierCall['stage'], 'placing'>, carrierCallId?: string): Entry | undefined {
    const e = this.#calls.get(callId);
    if (!e) return undefined;
    if (carrierCallId) e.carrierCallId ??= carrierCallId;
    if (RANK[to] <= RANK[e.stage]) return undefined; // a repeat, or news older than what we know
    e.stage = to;
    return e;
  }

  #settle(e: Entry, how: () => void): void {
    if (e.settled) return;
    e.settled = true;
    clearTimeout(e.timer);
    how();
  }
}
