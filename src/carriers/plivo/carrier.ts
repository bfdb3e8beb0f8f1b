/**
 * Plivo as a live carrier (README.md): Make Call over REST, the answer XML that opens a bidirectional mu-law
 * <Stream> to /v1/media/plivo, the ring/hang-up/machine callbacks mapped onto the call tracker, hang-up (DELETE
 * Call/{uuid}/) and transfer (aleg_url to a <Dial>). Every callback must carry a valid X-Plivo-Signature-V3 over the
 * URL we gave Plivo (which names our call), else 403.
 */
import { AdapterError, type AdapterCallOptions, type PlaceCallOptions, type PlaceCallRequest, type PlaceCallResult, type TransferDone, type TransferOptions } from '../../adapters/types.js';
import { emptyAnswer, problemAnswer, xmlAnswer } from '../answers.js';
import { CallTracker, type CarrierCall } from '../call_tracker.js';
import { mediaUrlOf, STREAM_TOKEN_PARAMETER, type CarrierAnswer, type CarrierRequest, type LiveCarrier, type LiveCarrierContext } from '../contract.js';
import { mediaSocket } from '../media_socket.js';
import { placeTracked } from '../placing.js';
import { plivoCodec } from './codec.js';
import { busyXml, dialXml, hangupXml, holdInConferenceXml, nobodyAnsweredXml, plivoNumber, streamXml, whisperThenConferenceXml } from './markup.js';
import { NOBODY_ANSWERED, transferRoom, whisperText } from '../warm_transfer.js';
import { PlivoRest } from './rest.js';
import { verifyPlivoRequest } from './signature.js';
import { plivoEnd, plivoStatus } from './status.js';

const TRANSFER_TARGET = /^(\+?[1-9]\d{6,14}|sip:[^\s<>"]+)$/;

export function createPlivoCarrier(ctx: LiveCarrierContext): LiveCarrier {
  const c = ctx.config;
  const token = c.PLIVO_AUTH_TOKEN!;
  const rest = new PlivoRest({ baseUrl: c.PLIVO_API_BASE_URL, authId: c.PLIVO_AUTH_ID!, authToken: token });
  const calls = new CallTracker();
  const hook = (name: string, callId: string) => `${ctx.publicBaseUrl}/carriers/plivo/${name}?${new URLSearchParams({ call_id: callId })}`;
  const mediaUpgrade = mediaSocket(plivoCodec, { log: ctx.log, capabilities: ctx.capabilities, onStream: ctx.onStream });

  // a call Plivo has named is hung up; one only requested is canceled as a request
  const cancel = async (call: CarrierCall) => {
    if (call.carrierCallId) await rest.hangup(call.carrierCallId, { attempts: 1 });
    else if (call.requestId) await rest.cancelRequest(call.requestId);
  };

  async function placeCall(req: PlaceCallRequest, opts: PlaceCallOptions = {}): Promise<PlaceCallResult> {
    return placeTracked(calls, {
      callId: req.callId, data: { mediaUrl: req.mediaUrl, token: req.parameters[STREAM_TOKEN_PARAMETER] ?? '' },
      ringTimeoutMs: (c.RING_TIMEOUT_SECONDS + 5) * 1000, // Plivo's own ring_timeout first; ours if its report never comes
      cancel,
      create: async (signal) => {
        const r = await rest.makeCall({
          from: plivoNumber(req.from ?? c.PLIVO_FROM_NUMBER!), to: plivoNumber(req.to),
          answer_url: hook('answer', req.callId), answer_method: 'POST',
          ring_url: hook('ring', req.callId), ring_method: 'POST',
          hangup_url: hook('hangup', req.callId), hangup_method: 'POST',
          ring_timeout: c.RING_TIMEOUT_SECONDS,
          machine_detection: 'true', machine_detection_url: hook('machine', req.callId), machine_detection_method: 'POST',
        }, signal);
        // invalid number, unverified caller id, rate limit after retries, 5xx: the call fails with Plivo's words
        if (r.status !== 200 && r.status !== 201) return { refused: rest.refusal(r) };
        const id = (r.json as { request_uuid?: unknown } | undefined)?.request_uuid;
        return typeof id === 'string' ? { requestId: id } : {};
      },
    }, opts, ctx.log);
  }

  async function hangup(carrierCallId: string, opts: AdapterCallOptions = {}): Promise<void> {
    const call = calls.byCarrierId(carrierCallId);
    if (call) calls.forgetLater(call.callId);
    if (call?.transferTarget) return; // the bridge to the human stays up
    const r = await rest.hangup(carrierCallId, { signal: opts.signal, timeoutMs: opts.timeoutMs });
    if (r.status !== 204 && r.status !== 200 && r.status !== 404) throw new AdapterError('carrier', r.status >= 500 ? 'unavailable' : 'failed', rest.refusal(r));
  }

  /**
   * Cold: the call's aleg_url becomes our `transfer` hook, which answers a <Dial>. Warm: the human is called first
   * (Make Call; its answer, hook `whisper`, speaks the summary and joins the call's conference room), then the caller
   * is moved into the room (hook `transfer` answers the <Conference>, background music until the human joins).
   */
  async function transfer(carrierCallId: string, target: string, opts: TransferOptions = {}): Promise<TransferDone> {
    const call = calls.byCarrierId(carrierCallId);
    if (!call) throw new AdapterError('carrier', 'invalid', 'not a call of this carrier');
    if (!TRANSFER_TARGET.test(target)) throw new AdapterError('carrier', 'invalid', 'transfer target must be E.164 or sip:');
    const warm = opts.mode === 'warm';
    call.transferTarget = target;
    if (warm) {
      call.data.whisper = whisperText(opts.summary);
      const leg = await rest.makeCall({
        from: plivoNumber(c.PLIVO_FROM_NUMBER!), to: target.startsWith('sip:') ? target : plivoNumber(target),
        answer_url: hook('whisper', call.callId), answer_method: 'POST', hangup_url: hook('transfer-end', call.callId), hangup_method: 'POST',
        ring_timeout: c.RING_TIMEOUT_SECONDS,
      }, opts.signal ?? AbortSignal.timeout(10_000));
      if (leg.status !== 200 && leg.status !== 201) { call.transferTarget = undefined; throw new AdapterError('carrier', leg.status >= 500 ? 'unavailable' : 'failed', rest.refusal(leg)); }
      const requestId = (leg.json as { request_uuid?: unknown } | undefined)?.request_uuid;
      if (typeof requestId === 'string') call.data.transferLeg = requestId;
    }
    const r = await rest.transfer(carrierCallId, hook('transfer', call.callId), { signal: opts.signal, timeoutMs: opts.timeoutMs });
    if (r.status === 202 || r.status === 200) return { mode: warm ? 'warm' : 'cold' };
    call.transferTarget = undefined;
    // the caller stays with the agent: the human's call, ringing or answered, is canceled
    if (call.data.transferLeg) await rest.cancelRequest(call.data.transferLeg).catch(() => {});
    throw new AdapterError('carrier', r.status >= 500 ? 'unavailable' : 'failed', rest.refusal(r));
  }

  async function callback(name: string, req: CarrierRequest): Promise<CarrierAnswer> {
    if (!verifyPlivoRequest(token, req)) return problemAnswer('forbidden', 'X-Plivo-Signature-V3 does not match');
    const p = req.params;
    const uuid = p.CallUUID || undefined;
    if (name === 'incoming') return incoming(p);
    // the URLs we give with a call name it; an inbound call's (the application's hangup URL) are matched by CallUUID
    const named = new URL(req.url).searchParams.get('call_id') ?? '';
    const callId = named || (uuid ? calls.byCarrierId(uuid)?.callId ?? '' : '');
    switch (name) {
      case 'ring':
        calls.ringing(callId, uuid);
        return emptyAnswer(200);
      case 'answer': {
        const call = calls.get(callId);
        if (!call || !calls.answered(callId, uuid, plivoStatus(p) || 'in-progress')) return xmlAnswer(hangupXml()); // a call we gave up on
        return xmlAnswer(streamXml(call.data.mediaUrl, callId, call.data.token));
      }
      case 'hangup':
        calls.ended(callId, plivoEnd(p.CallStatus ?? '', p.HangupCause ?? ''), plivoStatus(p) || 'completed');
        return emptyAnswer(200);
      case 'machine':
        if (p.Machine === 'true') calls.machine(callId, true, `machine${p.MachineDetectionDuration ? `:${p.MachineDetectionDuration}ms` : ''}`);
        return emptyAnswer(200);
      case 'transfer': {
        const call = calls.get(callId);
        if (!call?.transferTarget) return xmlAnswer(hangupXml());
        return xmlAnswer(call.data.whisper ? holdInConferenceXml(transferRoom(callId)) : dialXml(call.transferTarget));
      }
      case 'whisper': {
        // the human of a warm transfer answered: the summary, then the room where the caller waits
        const whisper = calls.get(callId)?.data.whisper;
        return xmlAnswer(whisper ? whisperThenConferenceXml(whisper, transferRoom(callId)) : hangupXml());
      }
      case 'transfer-end': {
        // the human's call ended; unanswered (busy, no answer, failed), the waiting caller is told and let go
        const call = calls.get(callId);
        const unanswered = ['busy', 'no-answer', 'failed', 'timeout', 'cancel'].includes(p.CallStatus ?? '');
        const ours = !call?.data.transferLeg || !p.RequestUUID || p.RequestUUID === call.data.transferLeg;
        if (call?.carrierCallId && call.data.whisper && unanswered && ours) {
          call.data.sorry = 'yes';
          await rest.transfer(call.carrierCallId, hook('sorry', callId), { timeoutMs: 10_000 })
            .catch((err) => ctx.log.warn({ err, call_id: callId }, 'the caller of an unanswered warm transfer could not be told'));
        }
        return emptyAnswer(200);
      }
      case 'sorry':
        return xmlAnswer(calls.get(callId)?.data.sorry ? nobodyAnsweredXml(NOBODY_ANSWERED) : hangupXml());
      default:
        return problemAnswer('not_found', `no plivo callback ${name}`);
    }
  }

  /**
   * The answer URL of the Plivo application our numbers use: a lead calls. The engine takes the call (or it is
   * hung up, busy) and the answer streams it like a call we placed.
   */
  async function incoming(p: Record<string, string>): Promise<CarrierAnswer> {
    const plus = (n: string | undefined) => (n ? (n.startsWith('+') || n.startsWith('sip:') ? n : `+${n}`) : '');
    const offer = { to: plus(p.To), from: plus(p.From), carrierCallId: p.CallUUID ?? '' };
    if (!offer.to || !offer.from || !offer.carrierCallId) return xmlAnswer(busyXml());
    const accepted = await ctx.inbound(offer);
    if (!accepted) return xmlAnswer(busyXml());
    calls.adopt(accepted.callId, { carrierCallId: offer.carrierCallId, onEvent: accepted.onEvent });
    return xmlAnswer(streamXml(mediaUrlOf(ctx.mediaBaseUrl ?? ctx.publicBaseUrl, 'plivo'), accepted.callId, accepted.parameters[STREAM_TOKEN_PARAMETER] ?? ''));
  }

  return {
    name: 'plivo', placeCall, hangup, transfer, callback, mediaUpgrade,
    async close() { calls.close(); mediaUpgrade.closeAll(); },
  };
}
