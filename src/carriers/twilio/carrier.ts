/**
 * Twilio as a live carrier (README.md). placeCall creates the call over REST with TwiML <Connect><Stream> to our
 * media socket (the call's id and media capability as <Parameter>s), status callbacks and asynchronous
 * answering-machine detection, each callback URL naming our call id. Callbacks and the media upgrade are believed
 * only with a valid X-Twilio-Signature. Hang-up and transfer update the call's REST resource.
 */
import { AdapterError, type AdapterCallOptions, type PlaceCallOptions, type PlaceCallRequest, type PlaceCallResult, type TransferDone, type TransferOptions } from '../../adapters/types.js';
import { emptyAnswer, problemAnswer, xmlAnswer } from '../answers.js';
import { CallTracker, type CarrierCall } from '../call_tracker.js';
import { mediaUrlOf, type CarrierAnswer, type CarrierRequest, type LiveCarrier, type LiveCarrierContext } from '../contract.js';
import { mediaSocket, type MediaSocket } from '../media_socket.js';
import { placeTracked } from '../placing.js';
import { twilioCodec } from './codec.js';
import { outcomeOfApiError } from './errors.js';
import { connectStreamTwiml, dialTwiml, holdInConferenceTwiml, MAX_TWIML_CHARS, nobodyAnsweredTwiml, rejectTwiml, whisperThenConferenceTwiml } from './markup.js';
import { NOBODY_ANSWERED, transferRoom, whisperText } from '../warm_transfer.js';
import { asCarrierError, TwilioApiError, TwilioRest } from './rest.js';
import { formOf, signatureHeader, verifyTwilioSignature } from './signature.js';
import { applyAmd, applyStatus } from './status.js';

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
  readonly mediaUpgrade: MediaSocket;
  readonly #rest: TwilioRest;
  readonly #token: string;
  readonly #calls = new CallTracker();
  /** read when used: a process of INSTANCES learns its own address once it listens (src/cluster.ts) */
  get #mediaUrl(): string { return mediaUrlOf(this.ctx.mediaBaseUrl ?? this.ctx.publicBaseUrl, 'twilio'); }

  constructor(private readonly ctx: LiveCarrierContext, private readonly o: TwilioCarrierOptions = {}) {
    const c = ctx.config;
    this.#token = c.TWILIO_AUTH_TOKEN!;
    this.#rest = new TwilioRest({ baseUrl: c.TWILIO_API_BASE_URL, accountSid: c.TWILIO_ACCOUNT_SID!, authToken: this.#token,
      ...(o.retryBaseMs !== undefined ? { retryBaseMs: o.retryBaseMs } : {}) });
    // Twilio signs the wss:// URL it was told to connect to: this instance's (INSTANCE_PUBLIC_URL, else PUBLIC_BASE_URL)
    this.mediaUpgrade = mediaSocket(twilioCodec, {
      log: ctx.log, capabilities: ctx.capabilities, onStream: ctx.onStream,
      refuseUpgrade: (req) => (verifyTwilioSignature(this.#token, this.#mediaUrl, signatureHeader(req.headers)) ? undefined : 'X-Twilio-Signature does not match'),
    });
  }

  async placeCall(req: PlaceCallRequest, opts: PlaceCallOptions = {}): Promise<PlaceCallResult> {
    const form = this.#createForm(req); // a request Twilio would refuse is not sent
    return placeTracked(this.#calls, {
      callId: req.callId, data: {},
      ringTimeoutMs: this.ctx.config.RING_TIMEOUT_SECONDS * 1000 + (this.o.ringGraceMs ?? RING_GRACE_MS),
      create: async (signal) => {
        try {
          return { carrierCallId: (await this.#rest.createCall(form, signal)).sid };
        } catch (err) {
          if (err instanceof TwilioApiError) return { refused: outcomeOfApiError(err).carrierStatus! };
          throw err;
        }
      },
      // canceled applies only to a call still queued or ringing: one answered meanwhile is completed
      cancel: (call) => this.#end(call, 'canceled'),
    }, opts, this.ctx.log);
  }

  async hangup(carrierCallId: string, opts: AdapterCallOptions = {}): Promise<void> {
    const call = this.#calls.byCarrierId(carrierCallId);
    if (call?.transferTarget) return; // bridged to a human: the call is theirs now
    if (call) this.#calls.forgetLater(call.callId);
    await this.#update(carrierCallId, new URLSearchParams({ Status: 'completed' }), opts.signal, true);
  }

  async transfer(carrierCallId: string, target: string, opts: TransferOptions = {}): Promise<TransferDone> {
    if (!TRANSFER_TARGET.test(target)) throw new AdapterError('carrier', 'invalid', 'transfer target must be E.164 or a SIP URI');
    // marked before the request: Twilio may stop our stream before it answers, and the hang-up that follows the
    // stream's end must not cut the call it is bridging
    const call = this.#calls.byCarrierId(carrierCallId);
    if (opts.mode === 'warm' && !call) throw new AdapterError('carrier', 'invalid', 'not a running call of this carrier');
    if (call) call.transferTarget = target;
    try {
      if (opts.mode === 'warm') await this.#warmTransfer(call!, carrierCallId, target, whisperText(opts.summary), opts.signal);
      else await this.#update(carrierCallId, new URLSearchParams({ Twiml: dialTwiml(target, this.ctx.config.TWILIO_FROM_NUMBER) }), opts.signal, false);
    } catch (err) {
      if (call) call.transferTarget = undefined;
      throw err;
    }
    return { mode: opts.mode === 'warm' ? 'warm' : 'cold' };
  }

  /**
   * Warm: the human's call is created first (its TwiML says the summary, then joins the call's conference room),
   * then the caller is moved into the room, where Twilio's hold music plays until the human joins. The human's
   * status callback (hook `transfer`) tells us when nobody answered: the caller is then told so and the call ends.
   */
  async #warmTransfer(call: CarrierCall, carrierCallId: string, target: string, summary: string, signal: AbortSignal | undefined): Promise<void> {
    const c = this.ctx.config;
    const room = transferRoom(call.callId);
    const twiml = whisperThenConferenceTwiml(summary, room);
    if (twiml.length > MAX_TWIML_CHARS) throw new AdapterError('carrier', 'invalid', `the transfer's TwiML is over ${MAX_TWIML_CHARS} characters`);
    const form = new URLSearchParams({ To: target, From: c.TWILIO_FROM_NUMBER!, Twiml: twiml, Timeout: String(c.RING_TIMEOUT_SECONDS),
      StatusCallback: `${this.ctx.publicBaseUrl}/carriers/twilio/transfer?call_id=${encodeURIComponent(call.callId)}`, StatusCallbackMethod: 'POST' });
    let leg: string;
    try {
      leg = (await this.#rest.createCall(form, signal)).sid;
    } catch (err) {
      throw asCarrierError(err, signal);
    }
    call.data.transferLeg = leg;
    try {
      await this.#update(carrierCallId, new URLSearchParams({ Twiml: holdInConferenceTwiml(room) }), signal, false);
    } catch (err) {
      // the caller stays with the agent: the human's call, ringing or answered, is ended
      await this.#update(leg, new URLSearchParams({ Status: 'completed' }), AbortSignal.timeout(END_TIMEOUT_MS), true).catch(() => {});
      throw err;
    }
  }

  /** The human's call of a warm transfer ended before it was answered: the caller, waiting in the room, is told and let go. */
  async #transferLegNews(callId: string | undefined, p: Record<string, string>): Promise<CarrierAnswer> {
    const call = callId ? this.#calls.get(callId) : undefined;
    const unanswered = ['busy', 'no-answer', 'failed', 'canceled'].includes(p.CallStatus ?? '');
    if (call?.carrierCallId && call.data.transferLeg === p.CallSid && unanswered) {
      await this.#update(call.carrierCallId, new URLSearchParams({ Twiml: nobodyAnsweredTwiml(NOBODY_ANSWERED) }), AbortSignal.timeout(END_TIMEOUT_MS), true)
        .catch((err) => this.ctx.log.warn({ err, call_id: callId }, 'the caller of an unanswered warm transfer could not be told'));
    }
    return emptyAnswer(204);
  }

  async callback(hook: string, req: CarrierRequest): Promise<CarrierAnswer> {
    const form = formOf(req);
    if (!verifyTwilioSignature(this.#token, req.url, signatureHeader(req.headers), form.signed)) {
      return problemAnswer('forbidden', 'X-Twilio-Signature does not match the request');
    }
    const p = form.fields;
    if (hook === 'voice') return this.#incoming(p);
    if (hook === 'transfer') return this.#transferLegNews(new URL(req.url).searchParams.get('call_id') ?? undefined, p);
    if (hook !== 'status' && hook !== 'amd') return problemAnswer('not_found', `no Twilio callback named ${hook}`);
    const call = this.#calls.find(new URL(req.url).searchParams.get('call_id') ?? undefined, p.CallSid || undefined);
    // a call we no longer track (ended, or another instance's): acknowledged, nothing to do
    if (call) (hook === 'status' ? applyStatus : applyAmd)(this.#calls, call, p);
    return emptyAnswer(204);
  }

  async close(): Promise<void> {
    this.mediaUpgrade.closeAll();
    this.#calls.close();
  }

  /**
   * The Voice URL of one of our numbers: a lead calls. The engine takes the call (or we reject it, busy) and the
   * answer streams it like a call we placed; its status callbacks name no call id and are matched by CallSid.
   */
  async #incoming(p: Record<string, string>): Promise<CarrierAnswer> {
    const offer = { to: p.To ?? '', from: p.From ?? '', carrierCallId: p.CallSid ?? '' };
    if (!offer.to || !offer.from || !offer.carrierCallId) return xmlAnswer(rejectTwiml());
    const accepted = await this.ctx.inbound(offer);
    if (!accepted) return xmlAnswer(rejectTwiml());
    this.#calls.adopt(accepted.callId, { carrierCallId: offer.carrierCallId, onEvent: accepted.onEvent });
    return xmlAnswer(connectStreamTwiml(this.#mediaUrl, accepted.parameters));
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

  /** Ends a call we gave up on while it rang; best effort, never throws (nobody awaits it). */
  async #end(call: CarrierCall, status: 'canceled' | 'completed'): Promise<void> {
    const sid = call.carrierCallId;
    if (!sid) return;
    // its own deadline keeps a stalled API from holding it
    const update = (s: string) => this.#update(sid, new URLSearchParams({ Status: s }), AbortSignal.timeout(END_TIMEOUT_MS), true);
    await update(status).catch(async () => {
      if (status === 'canceled') await update('completed').catch(() => {});
    });
  }

  async #update(sid: string, form: URLSearchParams, signal: AbortSignal | undefined, goneIsDone: boolean): Promise<void> {
    try {
      await this.#rest.updateCall(sid, form, signal);
    } catch (err) {
      if (err instanceof TwilioApiError) {
        if (goneIsDone && (err.code === 20404 || err.httpStatus === 404)) return; // already over
        this.ctx.log.warn({ code: err.code, status: err.httpStatus }, 'Twilio refused a call update');
      }
      throw asCarrierError(err, signal);
    }
  }
}
