/**
 * Exotel as a live carrier (provider_protocols.md §1.3): a call is connected into the operator's flow
 * (Calls/connect with Url=http://my.exotel.com/{sid}/exoml/start_voice/{app_id}, form body, HTTP Basic key:token);
 * the flow's Voicebot applet asks our `stream` hook for the socket URL, which carries the call's single-use
 * capability (Exotel signs nothing); the status callback reports answer and end. Hooks:
 * - status?call_id&key: StatusCallback; `key` is an HMAC of the call id only we can make.
 * - stream: the Voicebot applet's URL endpoint -> {"url":"wss://…/media/exotel?call_id=…&token=…"}.
 * - next, dial: a Passthru after the Voicebot (200 = transfer, 302 = hang up) and the Connect applet's number.
 * The static hooks are believed only for a CallSid Exotel gave us for a call still running.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { problemBody } from '../../api/problem.js';
import { AdapterError, type AdapterCallOptions, type PlaceCallOptions, type PlaceCallRequest, type PlaceCallResult } from '../../adapters/types.js';
import type { CarrierAnswer, CarrierRequest, LiveCarrier, LiveCarrierContext } from '../carrier.js';
import { CarrierCalls, type CarrierEnd } from '../carrier_calls.js';
import { carrierRequest, refusalReason, type CarrierHttpAnswer } from '../carrier_http.js';
import type { MediaStream } from '../../media/stream.js';
import { exotelUpgradeHandler } from './media.js';

const json = (status: number, body: unknown, type = 'application/json'): CarrierAnswer => ({ status, contentType: type, body: JSON.stringify(body) });
const forbidden = (detail: string) => json(403, problemBody('forbidden', detail), 'application/problem+json');
const ok = (): CarrierAnswer => ({ status: 200, contentType: 'text/plain', body: '' });

/** Exotel's Status as the end of our call. */
export function exotelEnd(status: string): CarrierEnd {
  switch (status) {
    case 'busy': return 'busy';
    case 'no-answer': return 'no_answer';
    case 'completed': return 'completed';
    default: return 'failed'; // failed, canceled and anything unknown
  }
}

export function createExotelCarrier(ctx: LiveCarrierContext): LiveCarrier {
  const c = ctx.config;
  const sid = c.EXOTEL_ACCOUNT_SID!;
  const basic: [string, string] = [c.EXOTEL_API_KEY!, c.EXOTEL_API_TOKEN!];
  const api = `${c.EXOTEL_API_BASE_URL.replace(/\/$/, '')}/v1/Accounts/${encodeURIComponent(sid)}`;
  const flowUrl = `http://my.exotel.com/${encodeURIComponent(sid)}/exoml/start_voice/${encodeURIComponent(c.EXOTEL_APP_ID!)}`;
  const keyOf = (callId: string) => createHmac('sha256', ctx.config.jwtSecret).update(`exotel-status-callback:${callId}`).digest('base64url').slice(0, 32);
  const calls = new CarrierCalls();
  /** the open stream of each call, by Exotel's CallSid: hanging up or transferring is closing it */
  const streams = new Map<string, MediaStream>();
  const transferred = new Set<string>();
  const upgrade = exotelUpgradeHandler({ capabilities: ctx.capabilities, onStream: (callId, s) => {
    if (!ctx.onStream(callId, s)) return false;
    streams.set(s.carrierCallId, s);
    return true;
  } }, ctx.log);
  const errorOf = (r: CarrierHttpAnswer) => {
    const e = (r.json as { RestException?: { Message?: unknown } } | undefined)?.RestException;
    return refusalReason(r.status, typeof e?.Message === 'string' ? e.Message : r.text);
  };

  async function placeCall(req: PlaceCallRequest, opts: PlaceCallOptions = {}): Promise<PlaceCallResult> {
    // Exotel has no documented way to cancel a ringing call: giving up is refusing its stream when it is answered
    const { call, result } = calls.track(req.callId, { data: { mediaUrl: req.mediaUrl, token: req.parameters.stream_token ?? '' },
      onEvent: opts.onEvent, signal: opts.signal, ringTimeoutMs: (c.RING_TIMEOUT_SECONDS + 5) * 1000, cancel: async () => {} });
    const form = new URLSearchParams({
      From: req.to, CallerId: c.EXOTEL_CALLER_ID!, Url: flowUrl, CallType: 'trans', TimeOut: String(c.RING_TIMEOUT_SECONDS),
      StatusCallback: `${ctx.publicBaseUrl}/carriers/exotel/status?${new URLSearchParams({ call_id: req.callId, key: keyOf(req.callId) })}`,
      'StatusCallbackEvents[0]': 'terminal', 'StatusCallbackEvents[1]': 'answered', CustomField: req.callId,
    });
    const r = await carrierRequest({ method: 'POST', url: `${api}/Calls/connect.json`, basic, body: { form }, signal: opts.signal })
      .catch((err: unknown) => err as AdapterError);
    if (r instanceof AdapterError) {
      if (r.code !== 'canceled') { ctx.log.warn({ call_id: req.callId, err: r.message }, 'exotel: connect did not reach Exotel'); calls.ended(req.callId, 'failed', r.message); }
    }
    else if (r.status === 200 || r.status === 201) {
      const j = r.json as { Call?: { Sid?: unknown }; call?: { sid?: unknown } } | undefined;
      const callSid = j?.Call?.Sid ?? j?.call?.sid;
      if (typeof callSid === 'string') call.carrierCallId ??= callSid;
      else calls.ended(req.callId, 'failed', 'rejected: no call sid in the answer');
    } else {
      // invalid number, DND/permissions, rate limit after retries, 5xx: the call fails with Exotel's words
      ctx.log.warn({ call_id: req.callId, status: r.status }, 'exotel: connect refused');
      calls.ended(req.callId, 'failed', errorOf(r));
    }
    return result;
  }

  async function hangup(carrierCallId: string): Promise<void> {
    const call = calls.byCarrierId(carrierCallId);
    if (call) calls.forgetLater(call.callId);
    if (transferred.delete(carrierCallId)) return; // the bridge to the human stays up
    streams.get(carrierCallId)?.close(); // the flow goes on to its next applet, which hangs up (`next` answers 302)
    streams.delete(carrierCallId);
  }

  async function transfer(carrierCallId: string, target: string, _opts?: AdapterCallOptions): Promise<void> {
    const call = calls.byCarrierId(carrierCallId);
    const stream = streams.get(carrierCallId);
    if (!call || !stream) throw new AdapterError('carrier', 'invalid', 'not a running call of this carrier');
    if (!/^\+?[1-9]\d{6,14}$/.test(target)) throw new AdapterError('carrier', 'invalid', 'transfer target must be E.164');
    call.transferTarget = target;
    transferred.add(carrierCallId);
    stream.close(); // the flow's Passthru asks `next` (200: transfer) and its Connect applet dials what `dial` gives
    streams.delete(carrierCallId);
  }

  /** A call of ours Exotel asks about by its CallSid (and our CustomField, when it passes it on). */
  const knownCall = (p: Record<string, string>) => {
    const call = p.CallSid ? calls.byCarrierId(p.CallSid) : undefined;
    if (!call || (p.CustomField && p.CustomField !== call.callId)) return undefined;
    return call;
  };

  async function callback(name: string, req: CarrierRequest): Promise<CarrierAnswer> {
    const q = new URL(req.url).searchParams;
    const p: Record<string, string> = { ...Object.fromEntries(q), ...req.params };
    switch (name) {
      case 'status': {
        const callId = q.get('call_id') ?? '';
        const want = Buffer.from(keyOf(callId));
        const got = Buffer.from(q.get('key') ?? '');
        if (got.length !== want.length || !timingSafeEqual(got, want)) return forbidden('not a status callback of this service');
        if (p.EventType === 'answered' || p.Status === 'in-progress') calls.answered(callId, p.CallSid || undefined, p.Status || 'answered');
        else if (p.Status) calls.ended(callId, exotelEnd(p.Status), p.Status);
        return ok();
      }
      case 'stream': {
        const call = knownCall(p);
        if (!call) return forbidden('not a call of this service');
        calls.answered(call.callId, p.CallSid, 'in-progress'); // the flow reached the Voicebot: the callee picked up
        const url = `${call.data.mediaUrl}?${new URLSearchParams({ call_id: call.callId, token: call.data.token })}`;
        return json(200, { url });
      }
      case 'next': {
        const call = knownCall(p);
        return call?.transferTarget ? ok() : { status: 302, contentType: 'text/plain', body: '' };
      }
      case 'dial': {
        const call = knownCall(p);
        if (!call?.transferTarget) return forbidden('no transfer for this call');
        return json(200, { fetch_after_attempt: false, destination: { numbers: [call.transferTarget] } });
      }
      default:
        return json(404, problemBody('not_found', `no exotel callback ${name}`), 'application/problem+json');
    }
  }

  return {
    name: 'exotel', placeCall, hangup, transfer, callback, mediaUpgrade: upgrade,
    async close() { calls.close(); upgrade.closeAll(); },
  };
}
