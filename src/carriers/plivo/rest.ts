/**
 * The REST requests we make of Plivo (JSON, HTTP Basic auth id:token) through the carriers' REST helper: Make Call,
 * hang up a call (DELETE Call/{uuid}/) or cancel one not yet named (DELETE Request/{request_uuid}/), and transfer
 * (a new aleg_url for the call).
 */
import { CarrierApi, type CarrierHttpAnswer } from '../rest.js';

export class PlivoRest {
  readonly #api: CarrierApi;
  constructor(o: { baseUrl: string; authId: string; authToken: string }) {
    this.#api = new CarrierApi('plivo', `${o.baseUrl.replace(/\/$/, '')}/v1/Account/${encodeURIComponent(o.authId)}`, [o.authId, o.authToken]);
  }

  makeCall(body: Record<string, unknown>, signal: AbortSignal): Promise<CarrierHttpAnswer> {
    return this.#api.send('POST', '/Call/', { json: body, signal });
  }

  /** a named call is hung up; `attempts: 1` when nobody waits for it (a cancel) */
  hangup(uuid: string, o: { signal?: AbortSignal; timeoutMs?: number; attempts?: number } = {}): Promise<CarrierHttpAnswer> {
    return this.#api.send('DELETE', `/Call/${encodeURIComponent(uuid)}/`, { ...o, idempotent: true });
  }

  cancelRequest(requestUuid: string): Promise<CarrierHttpAnswer> {
    return this.#api.send('DELETE', `/Request/${encodeURIComponent(requestUuid)}/`, { attempts: 1, idempotent: true });
  }

  transfer(uuid: string, alegUrl: string, o: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<CarrierHttpAnswer> {
    return this.#api.send('POST', `/Call/${encodeURIComponent(uuid)}/`, { ...o, json: { legs: 'aleg', aleg_url: alegUrl, aleg_method: 'POST' }, idempotent: true });
  }

  /** Plivo's words for a refusal ({error} or {message}). */
  refusal(a: CarrierHttpAnswer): string { return this.#api.refusal(a); }
}
