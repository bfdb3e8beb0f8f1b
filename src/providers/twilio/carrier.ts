/**
 * Twilio as a live carrier. placeCall creates the call over REST with TwiML <Connect><Stream> to our media socket
 * (the call's id and media capability as <Parameter>s), status callbacks and asynchronous answering-machine
 * detection, each callback URL naming our call id; it resolves once the call is answered or has ended unanswered.
 * Callbacks and the media upgrade are believed only with a valid X-Twilio-Signature. Hang-up and transfer update
 * the call's REST resource.
 */
import { CREATE_ANSWER_GRACE_MS } from '../carrier_http.js';
import { abortAfterGrace } from '../../adapters/deadline.js';
import { AdapterError, type AdapterCallOptions, type PlaceCallOptions, type PlaceCallRequest, type PlaceCallResult } from '../../adapters/types.js';
import { problemBody } from '../../api/problem.js';
import type { Logger } from '../../log.js';
import { twilioUpgradeHandler } from '../../media/twilio_edge.js';
import { verifyTwilioSignature } from '../../media/twilio_protocol.js';
import type { CarrierAnswer, CarrierRequest, LiveCarrier, LiveCarrierContext } from '../carrier.js';
import { outcomeOfApiError } from './errors.js';
import { TwilioApiError, TwilioRest } from './rest.js';
import { TrackedCalls, type TrackedCall } from './calls.js';
import { connectStreamTwiml, dialTwiml, MAX_TWIML_CHARS } from './twiml.js';

/** after Twilio's own ring timeout, how long we wait for its verdict before ending the call ourselves, ms */
export const RING_GRACE_MS = 8000;
/** deadline of a hang-up nobody waits for (ring timeout, cancel), ms */
const END_TIMEOUT_MS = 10_000;
const TRANSFER_TARGET = /^(\+[1-9]\d{6,14}|sip:[^\s<>"&]{1,200})$/;

export interface TwilioCarrierOptions {
  /** override of RING_GRACE_MS (tests) */
  ringGraceMs?: number;
  /** REST retry pacing (tests) */
  retryBaseMs?: number;
}

export class TwilioCarrier implements LiveCarrier {
  readonly name = 'twilio' as const;
  readonly mediaUpgrade: LiveCarrier['mediaUpgrade'] & { closeAll(): void };
  readonly #rest: TwilioRest;
  readonly #token: string;
  readonly #calls = new TrackedCalls();
  readonly #log: Logger;
  readonly #mediaUrl: string;

  constructor(private readonly ctx: LiveCarrierContext, private readonly o: TwilioCarrierOptions = {}) {
    const c = ctx.config;
    this.#token = c.TWILIO_AUTH_TOKEN!;
    this.#log = ctx.log;
    this.#rest = new TwilioRest({ baseUrl: c.TWILIO_API_BASE_URL, accountSid: c.TWILIO_ACCOUNT_SID!, authToken: this.#token,
      ...(o.retryBaseMs !== undefined ? { retryBaseMs: o.retryBaseMs } : {}) });
    // Twilio signs the wss:// URL it was told to connect to: ours, from PUBLIC_BASE_URL
    this.#mediaUrl = `${ctx.publicBaseUrl.replace(/^http/, 'ws')}/media/twilio`;
    this.mediaUpgrade = twilioUpgradeHandler({
      log: ctx.log, authToken: this.#token, signedUrl: () => this.#mediaUrl, capabilities: ctx.capabilities,
      onStream: (s) => ctx.onStream(s.parameters.call_id ?? '', s),
    });
  }

  async placeCall(req: PlaceCallRequest, opts: PlaceCallOptions = {}): Promise<PlaceCallResult> {
    const form = this.#createForm(req);
    const { call, result } = this.#calls.open(req.callId, opts.onEvent);
    const dial = new AbortController();
    // a hang-up lets the create answer first, so the call Twilio made is canceled rather than left ringing
    const disposeGrace = abortAfterGrace(opts.signal, CREATE_ANSWER_GRACE_MS, dial);
    const ringMs = this.ctx.config.RING_TIMEOUT_SECONDS * 1000 + (this.o.ringGraceMs ?? RING_GRACE_MS);
    const ring = setTimeout(() => {
      call.settle?.({ carrierCallId: call.sid ?? '', outcome: 'no_answer', carrierStatus: `ring_timeout${call.status ? ` (last ${call.status})` : ''}` });
      if (call.sid) void this.#end(call, 'canceled');
      else dial.abort(new Error('ring timeout')); // Twilio has not even answered the create
    }, ringMs);
    try {
      if (opts.signal?.aborted) throw canceled(); // hung up before we asked: nothing to create
      let sid: string;
      try {
        sid = (await this.#rest.createCall(form, dial.signal)).sid;
      } catch (err) {
        if (err instanceof TwilioApiError) return outcomeOfApiError(err);
        if (!call.settle) return await result; // the ring timeout
        if (opts.signal?.aborted) throw canceled();
        throw err instanceof AdapterError ? err : new AdapterError('carrier', 'unavailable', `Twilio could not be reached: ${(err as Error).message}`);
      }
      this.#calls.created(call, sid);
      return await untilAborted(result, opts.signal).catch((err: unknown) => {
        void this.#end(call, call.answered ? 'completed' : 'canceled');
        throw opts.signal?.aborted ? canceled() : err;
      });
    } finally {
      clearTimeout(ring);
      disposeGrace();
      if (!call.answered) this.#calls.forget(call);
    }
  }

  async hangup(carrierCallId: string, opts: AdapterCallOptions = {}): Promise<void> {
    const call = this.#calls.bySid(carrierCallId);
    if (call?.transferred) return; // bridged to a human: the call is theirs now
    if (call) this.#calls.forget(call);
    await this.#update(carrierCallId, new URLSearchParams({ Status: 'completed' }), opts.signal, true);
  }

  async transfer(carrierCallId: string, target: string, opts: AdapterCallOptions = {}): Promise<void> {
    if (!TRANSFER_TARGET.test(target)) throw new AdapterError('carrier', 'invalid', 'transfer target must be E.164 or a SIP URI');
    // marked before the request: Twilio may stop our stream before it answers, and the hang-up that follows the
    // stream's end must not cut the call it is bridging
    const call = this.#calls.bySid(carrierCallId);
    if (call) call.transferred = true;
    try {
      await this.#update(carrierCallId, new URLSearchParams({ Twiml: dialTwiml(target, this.ctx.config.TWILIO_FROM_NUMBER) }), opts.signal, false);
    } catch (err) {
      if (call) call.transferred = false;
      throw err;
    }
  }

  async callback(hook: string, req: CarrierRequest): Promise<CarrierAnswer> {
    const form = formOf(req);
    const sig = req.headers['x-twilio-signature'];
    if (!verifyTwilioSignature(this.#token, req.url, Array.isArray(sig) ? sig[0] : sig, form.signed)) {
      return problem(403, 'forbidden', 'X-Twilio-Signature does not match the request');
    }
    if (hook !== 'status' && hook !== 'amd') return problem(404, 'not_found', `no Twilio callback named ${hook}`);
    const p = form.fields;
    const call = this.#calls.find(new URL(req.url).searchParams.get('call_id') ?? '', p.CallSid);
    // a call we no longer track (ended, or another instance's): acknowledged, nothing to do
    if (!call) return { status: 204 };
    if (hook === 'status') this.#calls.status(call, p); else this.#calls.amd(call, p);
    return { status: 204 };
  }

  async close(): Promise<void> {
    this.mediaUpgrade.closeAll();
    this.#calls.clear();
  }

  #createForm(req: PlaceCallRequest): URLSearchParams {
    const c = this.ctx.config;
    let twiml: string;
    try { twiml = connectStreamTwiml(req.mediaUrl, req.parameters); } catch (err) { throw new AdapterError('carrier', 'invalid', (err as Error).message); }
    if (twiml.length > MAX_TWIML_CHARS) throw new AdapterError('carrier', 'invalid', `the call's TwiML is over ${MAX_TWIML_CHARS} characters`);
    const hook = (name: string) => `${this.ctx.publicBaseUrl}/carriers/twilio/${name}?call_id=${encodeURIComponent(req.callId)}`;
    const form = new URLSearchParams({
      To: req.to, From: req.from ?? c.TWILIO_FROM_NUMBER!, Twiml: twiml, Timeout: String(c.RING_TIMEOUT_SECONDS),
      StatusCallback: hook('status'), StatusCallbackMethod: 'POST',
      MachineDetection: 'DetectMessageEnd', AsyncAmd: 'true', AsyncAmdStatusCallback: hook('amd'), AsyncAmdStatusCallbackMethod: 'POST',
    });
    for (const e of ['initiated', 'ringing', 'answered', 'completed']) form.append('StatusCallbackEvent', e);
    return form;
  }

  /** Ends a call we gave up on (canceled while ringing, completed once answered); best effort, never throws. */
  async #end(call: TrackedCall, status: 'canceled' | 'completed'): Promise<void> {
    this.#calls.forget(call);
    if (!call.sid) return;
    // nobody awaits this: its own deadline keeps a stalled API from holding it
    const update = (s: string) => this.#update(call.sid!, new URLSearchParams({ Status: s }), AbortSignal.timeout(END_TIMEOUT_MS), true);
    await update(status).catch(async () => {
      // canceled applies only to a call still queued or ringing: one answered meanwhile is completed
      if (status === 'canceled') await update('completed').catch(() => {});
    });
  }

  async #update(sid: string, form: URLSearchParams, signal: AbortSignal | undefined, goneIsDone: boolean): Promise<void> {
    try {
      await this.#rest.updateCall(sid, form, signal);
    } catch (err) {
      if (err instanceof TwilioApiError) {
        if (goneIsDone && (err.code === 20404 || err.httpStatus === 404)) return; // already over
        this.#log.warn({ code: err.code, status: err.httpStatus }, 'Twilio refused a call update');
        throw new AdapterError('carrier', err.retryable ? 'unavailable' : 'failed', `Twilio error ${err.code ?? err.httpStatus}: ${err.message}`);
      }
      if (signal?.aborted) throw new AdapterError('carrier', 'canceled', 'call update canceled');
      throw new AdapterError('carrier', 'unavailable', `Twilio could not be reached: ${(err as Error).message}`);
    }
  }
}

/** The form fields of a callback: as signed (repeated names as lists) and as plain fields (first value). */
function formOf(req: CarrierRequest): { signed: Record<string, string | string[]>; fields: Record<string, string> } {
  const signed: Record<string, string | string[]> = {};
  const fields: Record<string, string> = {};
  if (req.method !== 'POST') return { signed, fields };
  for (const [k, v] of new URLSearchParams(req.rawBody.toString('utf8'))) {
    const had = signed[k];
    signed[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
    fields[k] ??= v;
  }
  return { signed, fields };
}

const canceled = () => new AdapterError('carrier', 'canceled', 'the call was canceled while it was being placed');

/** `p`, or the signal's abort, whichever comes first. */
function untilAborted<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) { onAbort(); return; }
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function problem(status: 403 | 404, code: 'forbidden' | 'not_found', detail: string): CarrierAnswer {
  return { status, contentType: 'application/problem+json', body: JSON.stringify(problemBody(code, detail)) };
}
