/**
 * Plivo as a live carrier (provider_protocols.md §1.2): Make Call over REST (JSON, HTTP Basic auth id:token), the
 * answer XML that opens a bidirectional mu-law <Stream> to /v1/media/plivo, the ring/hang-up/machine callbacks
 * mapped onto the call's lifecycle, hang-up (DELETE Call/{uuid}/) and transfer (aleg_url to a <Dial>). Every
 * callback must carry a valid X-Plivo-Signature-V3 over the URL we gave Plivo (which names our call), else 403.
 */
import { problemBody } from '../../api/problem.js';
import { AdapterError, type AdapterCallOptions, type PlaceCallOptions, type PlaceCallRequest, type PlaceCallResult } from '../../adapters/types.js';
import type { CarrierAnswer, CarrierRequest, LiveCarrier, LiveCarrierContext } from '../carrier.js';
import { CarrierCalls, type CarrierCall, type CarrierEnd } from '../carrier_calls.js';
import { abortAfterGrace } from '../../adapters/deadline.js';
import { carrierRequest, CREATE_ANSWER_GRACE_MS, refusalReason, type CarrierHttpAnswer } from '../carrier_http.js';
import { hexOf, PLIVO_CONTENT_TYPE, plivoUpgradeHandler } from './media.js';
import { verifyPlivoSignatureV3 } from './signature.js';

const xml = (body: string): CarrierAnswer => ({ status: 200, contentType: 'application/xml',
  body: `<?xml version="1.0" encoding="UTF-8"?>\n<Response>${body}</Response>` });
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const forbidden = (detail: string): CarrierAnswer => ({ status: 403, contentType: 'application/problem+json', body: JSON.stringify(problemBody('forbidden', detail)) });
const ok = (): CarrierAnswer => ({ status: 200, contentType: 'text/plain', body: '' });
/** Plivo numbers: country code and digits, no "+" */
const plivoNumber = (e164: string) => e164.replace(/^\+/, '');

/** Plivo's CallStatus (and HangupCause when the status says little) as the end of our call. */
export function plivoEnd(callStatus: string, hangupCause: string): CarrierEnd {
  switch (callStatus) {
    case 'busy': return 'busy';
    case 'no-answer': case 'timeout': return 'no_answer';
    case 'failed': return 'failed';
    case 'cancel': case 'canceled': return 'failed';
    case 'completed': return 'completed';
    default:
      if (/BUSY/i.test(hangupCause)) return 'busy';
      if (/NO_ANSWER|TIMEOUT/i.test(hangupCause)) return 'no_answer';
      return 'failed';
  }
}

export function createPlivoCarrier(ctx: LiveCarrierContext): LiveCarrier {
  const c = ctx.config;
  const authId = c.PLIVO_AUTH_ID!;
  const token = c.PLIVO_AUTH_TOKEN!;
  const api = `${c.PLIVO_API_BASE_URL.replace(/\/$/, '')}/v1/Account/${encodeURIComponent(authId)}`;
  const calls = new CarrierCalls();
  /** calls handed to a human: our hang-up at the end of the session must not end the bridge */
  const transferred = new Set<string>();
  const hook = (name: string, callId: string, extra: Record<string, string> = {}) =>
    `${ctx.publicBaseUrl}/carriers/plivo/${name}?${new URLSearchParams({ call_id: callId, ...extra })}`;
  const rest = (method: 'POST' | 'DELETE', path: string, o: { json?: unknown; signal?: AbortSignal; timeoutMs?: number; attempts?: number } = {}) =>
    carrierRequest({ method, url: `${api}${path}`, basic: [authId, token], ...(o.json ? { body: { json: o.json } } : {}),
      signal: o.signal, timeoutMs: o.timeoutMs, attempts: o.attempts });
  const errorOf = (r: CarrierHttpAnswer) => {
    const j = r.json as { error?: unknown; message?: unknown } | undefined;
    return refusalReason(r.status, typeof j?.error === 'string' ? j.error : typeof j?.message === 'string' ? j.message : r.text);
  };

  const cancel = async (call: CarrierCall) => {
    // a call Plivo has named is hung up; one only requested is canceled as a request
    if (call.carrierCallId) await rest('DELETE', `/Call/${encodeURIComponent(call.carrierCallId)}/`, { attempts: 1 });
    else if (call.requestId) await rest('DELETE', `/Request/${encodeURIComponent(call.requestId)}/`, { attempts: 1 });
  };

  const upgrade = plivoUpgradeHandler(ctx, ctx.log);

  async function placeCall(req: PlaceCallRequest, opts: PlaceCallOptions = {}): Promise<PlaceCallResult> {
    const ringTimeoutMs = (c.RING_TIMEOUT_SECONDS + 5) * 1000; // Plivo's own ring_timeout first; ours if its report never comes
    const { call, result } = calls.track(req.callId, { data: { mediaUrl: req.mediaUrl, token: req.parameters.stream_token ?? '' },
      onEvent: opts.onEvent, signal: opts.signal, ringTimeoutMs, cancel });
    if (opts.signal?.aborted) return result; // hung up before we asked: nothing to request (result is rejected)
    // a hang-up lets Make Call answer first, so the call it requested is canceled rather than left ringing
    const create = new AbortController();
    const disposeGrace = abortAfterGrace(opts.signal, CREATE_ANSWER_GRACE_MS, create);
    const r = await rest('POST', '/Call/', { signal: create.signal, json: {
      from: plivoNumber(req.from ?? c.PLIVO_FROM_NUMBER!), to: plivoNumber(req.to),
      answer_url: hook('answer', req.callId), answer_method: 'POST',
      ring_url: hook('ring', req.callId), ring_method: 'POST',
      hangup_url: hook('hangup', req.callId), hangup_method: 'POST',
      ring_timeout: c.RING_TIMEOUT_SECONDS,
      machine_detection: 'true', machine_detection_url: hook('machine', req.callId), machine_detection_method: 'POST',
    } }).catch((err: unknown) => err as AdapterError).finally(disposeGrace);
    if (r instanceof AdapterError) {
      if (r.code !== 'canceled') { ctx.log.warn({ call_id: req.callId, err: r.message }, 'plivo: Make Call did not reach Plivo'); calls.ended(req.callId, 'failed', r.message); }
    } else if (r.status === 200 || r.status === 201) {
      const id = (r.json as { request_uuid?: unknown } | undefined)?.request_uuid;
      if (typeof id === 'string') {
        call.requestId = id;
        if (opts.signal?.aborted) void cancel(call).catch(() => { /* Plivo's ring_timeout ends it */ });
      }
    } else {
      // invalid number, unverified caller id, rate limit after retries, 5xx: the call fails with Plivo's words
      ctx.log.warn({ call_id: req.callId, status: r.status }, 'plivo: Make Call refused');
      calls.ended(req.callId, 'failed', errorOf(r));
    }
    return result;
  }

  async function hangup(carrierCallId: string, opts: AdapterCallOptions = {}): Promise<void> {
    const call = calls.byCarrierId(carrierCallId);
    if (call) calls.forgetLater(call.callId);
    if (transferred.delete(carrierCallId)) return; // the bridge to the human stays up
    const r = await rest('DELETE', `/Call/${encodeURIComponent(carrierCallId)}/`, { signal: opts.signal, timeoutMs: opts.timeoutMs });
    if (r.status !== 204 && r.status !== 200 && r.status !== 404) throw new AdapterError('carrier', r.status >= 500 ? 'unavailable' : 'failed', errorOf(r));
  }

  async function transfer(carrierCallId: string, target: string, opts: AdapterCallOptions = {}): Promise<void> {
    const call = calls.byCarrierId(carrierCallId);
    if (!call) throw new AdapterError('carrier', 'invalid', 'not a call of this carrier');
    if (!/^\+?[1-9]\d{6,14}$/.test(target) && !/^sip:[^\s<>"]+$/.test(target)) throw new AdapterError('carrier', 'invalid', 'transfer target must be E.164 or sip:');
    call.transferTarget = target;
    const r = await rest('POST', `/Call/${encodeURIComponent(carrierCallId)}/`, { signal: opts.signal, timeoutMs: opts.timeoutMs,
      json: { legs: 'aleg', aleg_url: hook('transfer', call.callId), aleg_method: 'POST' } });
    if (r.status !== 202 && r.status !== 200) throw new AdapterError('carrier', r.status >= 500 ? 'unavailable' : 'failed', errorOf(r));
    transferred.add(carrierCallId);
  }

  async function callback(name: string, req: CarrierRequest): Promise<CarrierAnswer> {
    const h = req.headers;
    const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(',') : v);
    if (!verifyPlivoSignatureV3(token, req.method.toUpperCase(), req.url, one(h['x-plivo-signature-v3-nonce']), one(h['x-plivo-signature-v3']), req.params)) {
      return forbidden('X-Plivo-Signature-V3 does not match');
    }
    const callId = new URL(req.url).searchParams.get('call_id') ?? '';
    const p = req.params;
    const uuid = p.CallUUID || undefined;
    const plivoStatus = [p.CallStatus, p.HangupCause].filter(Boolean).join(':');
    switch (name) {
      case 'ring':
        calls.ringing(callId, uuid);
        return ok();
      case 'answer': {
        const call = calls.get(callId);
        if (!call || !calls.answered(callId, uuid, plivoStatus || 'in-progress')) return xml('<Hangup/>'); // a call we gave up on
        const extra = `callid=${hexOf(callId)},token=${hexOf(call.data.token)}`;
        return xml(`<Stream bidirectional="true" keepCallAlive="true" audioTrack="inbound" contentType="${PLIVO_CONTENT_TYPE}" `
          + `extraHeaders="${extra}">${esc(call.data.mediaUrl)}</Stream>`);
      }
      case 'hangup':
        calls.ended(callId, plivoEnd(p.CallStatus ?? '', p.HangupCause ?? ''), plivoStatus || 'completed');
        return ok();
      case 'machine':
        if (p.Machine === 'true') calls.machine(callId, true, `machine${p.MachineDetectionDuration ? `:${p.MachineDetectionDuration}ms` : ''}`);
        return ok();
      case 'transfer': {
        const target = calls.get(callId)?.transferTarget;
        if (!target) return xml('<Hangup/>');
        return xml(`<Dial>${target.startsWith('sip:') ? `<User>${esc(target)}</User>` : `<Number>${esc(plivoNumber(target))}</Number>`}</Dial>`);
      }
      default:
        return { status: 404, contentType: 'application/problem+json', body: JSON.stringify(problemBody('not_found', `no plivo callback ${name}`)) };
    }
  }

  return {
    name: 'plivo', placeCall, hangup, transfer, callback, mediaUpgrade: upgrade,
    async close() { calls.close(); upgrade.closeAll(); },
  };
}
