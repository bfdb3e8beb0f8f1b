/**
 * Exotel as a live carrier (README.md): a call is connected into the operator's flow (Calls/connect); the flow's
 * Voicebot applet asks our `stream` hook for the socket URL, which carries the call's single-use capability; the
 * status callback reports answer and end. Hooks:
 * - status?call_id&key: the StatusCallback of one call; `key` is an HMAC of the call id only we can make.
 * - stream, next, dial, whisper: the flow's applets (the Voicebot's URL, a Passthru after it: 200 = transfer,
 *   302 = hang up, the Connect applet's number and its playback to the human), each carrying the deployment secret EXOTEL_HOOK_SECRET. They are believed only
 *   with it and for a CallSid Exotel gave us for a call still running (the stream: one still waiting for its
 *   stream); anything else is 403 and nothing more.
 */
import { AdapterError, type PlaceCallOptions, type PlaceCallRequest, type PlaceCallResult, type TransferDone, type TransferOptions } from '../../adapters/types.js';
import type { MediaStream } from '../../media/stream.js';
import { bareForbidden, emptyAnswer, jsonAnswer, problemAnswer } from '../answers.js';
import { CallTracker, type CarrierCall } from '../call_tracker.js';
import { mediaUrlOf, STREAM_TOKEN_PARAMETER, type CarrierAnswer, type CarrierRequest, type LiveCarrier, type LiveCarrierContext } from '../contract.js';
import { mediaSocket } from '../media_socket.js';
import { placeTracked } from '../placing.js';
import { exotelCodec } from './codec.js';
import { calleePlaybackJson, dialJson, streamUrlJson } from './markup.js';
import { whisperText } from '../warm_transfer.js';
import { ExotelRest } from './rest.js';
import { statusKey, verifyHookSecret, verifyStatusKey } from './signature.js';
import { exotelE164, exotelEnd } from './status.js';

const TRANSFER_TARGET = /^\+?[1-9]\d{6,14}$/;

export function createExotelCarrier(ctx: LiveCarrierContext): LiveCarrier {
  const c = ctx.config;
  const rest = new ExotelRest({ baseUrl: c.EXOTEL_API_BASE_URL, accountSid: c.EXOTEL_ACCOUNT_SID!, apiKey: c.EXOTEL_API_KEY!, apiToken: c.EXOTEL_API_TOKEN! });
  const flowUrl = `http://my.exotel.com/${encodeURIComponent(c.EXOTEL_ACCOUNT_SID!)}/exoml/start_voice/${encodeURIComponent(c.EXOTEL_APP_ID!)}`;
  const hookSecret = c.EXOTEL_HOOK_SECRET!;
  const calls = new CallTracker();
  /** the open stream of each call, by Exotel's CallSid: hanging up or transferring is closing it */
  const streams = new Map<string, MediaStream>();
  const mediaUpgrade = mediaSocket(exotelCodec, { log: ctx.log, capabilities: ctx.capabilities, onStream: (callId, s) => {
    if (!ctx.onStream(callId, s)) return false;
    streams.set(s.carrierCallId, s);
    return true;
  } });

  async function placeCall(req: PlaceCallRequest, opts: PlaceCallOptions = {}): Promise<PlaceCallResult> {
    const form = new URLSearchParams({
      From: req.to, CallerId: c.EXOTEL_CALLER_ID!, Url: flowUrl, CallType: 'trans', TimeOut: String(c.RING_TIMEOUT_SECONDS),
      StatusCallback: `${ctx.publicBaseUrl}/carriers/exotel/status?${new URLSearchParams({ call_id: req.callId, key: statusKey(c.jwtSecret, req.callId) })}`,
      'StatusCallbackEvents[0]': 'terminal', 'StatusCallbackEvents[1]': 'answered', CustomField: req.callId,
    });
    return placeTracked(calls, {
      callId: req.callId, data: { mediaUrl: req.mediaUrl, token: req.parameters[STREAM_TOKEN_PARAMETER] ?? '' },
      ringTimeoutMs: (c.RING_TIMEOUT_SECONDS + 5) * 1000,
      // Exotel has no documented way to cancel a ringing call: giving up is refusing its stream when it is answered
      cancel: async () => {},
      create: async (signal) => {
        const r = await rest.connect(form, signal);
        // invalid number, DND/permissions, rate limit after retries, 5xx: the call fails with Exotel's words
        if (r.status !== 200 && r.status !== 201) return { refused: rest.refusal(r) };
        const sid = ExotelRest.sidOf(r);
        return sid ? { carrierCallId: sid } : { refused: 'rejected: no call sid in the answer' };
      },
    }, opts, ctx.log);
  }

  async function hangup(carrierCallId: string): Promise<void> {
    const call = calls.byCarrierId(carrierCallId);
    if (call) calls.forgetLater(call.callId);
    if (call?.transferTarget) return; // the bridge to the human stays up
    streams.get(carrierCallId)?.close(); // the flow goes on to its next applet, which hangs up (`next` answers 302)
    streams.delete(carrierCallId);
  }

  /**
   * Closing the stream hands the call back to the flow: its Passthru asks `next` (200: transfer) and its Connect
   * applet dials what `dial` gives, the caller hearing the applet's ringing or music meanwhile. Warm: the applet's
   * playback URL (`whisper`) makes Exotel say the summary to the human alone before connecting the caller.
   */
  async function transfer(carrierCallId: string, target: string, opts: TransferOptions = {}): Promise<TransferDone> {
    const call = calls.byCarrierId(carrierCallId);
    const stream = streams.get(carrierCallId);
    if (!call || !stream) throw new AdapterError('carrier', 'invalid', 'not a running call of this carrier');
    if (!TRANSFER_TARGET.test(target)) throw new AdapterError('carrier', 'invalid', 'transfer target must be E.164');
    call.transferTarget = target;
    if (opts.mode === 'warm') call.data.whisper = whisperText(opts.summary);
    stream.close();
    streams.delete(carrierCallId);
    return { mode: opts.mode === 'warm' ? 'warm' : 'cold' };
  }

  /** A running call of ours Exotel asks about by its CallSid (and our CustomField, when it passes it on). */
  const knownCall = (p: Record<string, string>): CarrierCall | undefined => {
    const call = p.CallSid ? calls.byCarrierId(p.CallSid) : undefined;
    if (!call || call.stage === 'ended' || (p.CustomField && p.CustomField !== call.callId)) return undefined;
    return call;
  };

  async function callback(name: string, req: CarrierRequest): Promise<CarrierAnswer> {
    const q = new URL(req.url).searchParams;
    const p: Record<string, string> = { ...Object.fromEntries(q), ...req.params };
    if (name === 'status') {
      const callId = q.get('call_id') ?? '';
      if (!verifyStatusKey(c.jwtSecret, callId, q.get('key'))) return problemAnswer('forbidden', 'not a status callback of this service');
      if (p.EventType === 'answered' || p.Status === 'in-progress') calls.answered(callId, p.CallSid || undefined, p.Status || 'answered');
      else if (p.Status) calls.ended(callId, exotelEnd(p.Status), p.Status);
      return emptyAnswer(200);
    }
    if (name !== 'stream' && name !== 'next' && name !== 'dial' && name !== 'whisper') return problemAnswer('not_found', `no exotel callback ${name}`);
    // the applet hooks say nothing to a stranger: no reason, no hint whether a call exists
    if (!verifyHookSecret(hookSecret, req)) return bareForbidden();
    const call = knownCall(p);
    switch (name) {
      case 'stream': {
        if (!call && p.CallSid && !calls.byCarrierId(p.CallSid) && p.Direction === 'incoming') return incoming(p);
        // one stream URL per call, and only while the call waits for its stream
        if (!call || call.data.streamAsked || streams.has(call.carrierCallId ?? '')) return bareForbidden();
        call.data.streamAsked = 'yes';
        calls.answered(call.callId, p.CallSid, 'in-progress'); // the flow reached the Voicebot: the callee picked up
        return jsonAnswer(streamUrlJson(call.data.mediaUrl, call.callId, call.data.token));
      }
      case 'next':
        return call?.transferTarget ? emptyAnswer(200) : emptyAnswer(302);
      case 'whisper':
        // a cold transfer through a flow whose applet asks anyway: the human hears only where the call comes from
        return call?.transferTarget ? jsonAnswer(calleePlaybackJson(whisperText(call.data.whisper))) : bareForbidden();
      default:
        return call?.transferTarget ? jsonAnswer(dialJson(call.transferTarget)) : bareForbidden();
    }
  }

  /**
   * The Voicebot applet of the flow our ExoPhone runs for calls that come in: a lead calls. The engine takes the
   * call and the answer streams it like a call we placed; refused, the applet gets 403 and the flow goes on.
   */
  async function incoming(p: Record<string, string>): Promise<CarrierAnswer> {
    const offer = { to: exotelE164(p.CallTo ?? p.To), from: exotelE164(p.CallFrom ?? p.From), carrierCallId: p.CallSid };
    if (!offer.to || !offer.from) return bareForbidden();
    const accepted = await ctx.inbound(offer);
    if (!accepted) return bareForbidden();
    const call = calls.adopt(accepted.callId, { carrierCallId: offer.carrierCallId, onEvent: accepted.onEvent, data: { streamAsked: 'yes' } });
    return jsonAnswer(streamUrlJson(mediaUrlOf(ctx.mediaBaseUrl ?? ctx.publicBaseUrl, 'exotel'), call.callId, accepted.parameters[STREAM_TOKEN_PARAMETER] ?? ''));
  }

  return {
    name: 'exotel', placeCall, hangup, transfer, callback, mediaUpgrade,
    async close() { calls.close(); mediaUpgrade.closeAll(); },
  };
}
