/**
 * The one REST request we make of Exotel (form body, HTTP Basic API key:token) through the carriers' REST helper:
 * Calls/connect, which connects the callee into the operator's flow. Exotel documents no hang-up or cancel for a
 * connected call: the flow ends it (README.md).
 */
import { CarrierApi, type CarrierHttpAnswer } from '../rest.js';

export class ExotelRest {
  readonly #api: CarrierApi;
  constructor(o: { baseUrl: string; accountSid: string; apiKey: string; apiToken: string }) {
    this.#api = new CarrierApi('exotel', `${o.baseUrl.replace(/\/$/, '')}/v1/Accounts/${encodeURIComponent(o.accountSid)}`, [o.apiKey, o.apiToken]);
  }

  connect(form: URLSearchParams, signal: AbortSignal): Promise<CarrierHttpAnswer> {
    return this.#api.send('POST', '/Calls/connect.json', { form, signal });
  }

  /** The connected call's sid ({Call:{Sid}}, or {call:{sid}} on the newer API), if the answer holds one. */
  static sidOf(a: CarrierHttpAnswer): string | undefined {
    const j = a.json as { Call?: { Sid?: unknown }; call?: { sid?: unknown } } | undefined;
    const sid = j?.Call?.Sid ?? j?.call?.sid;
    return typeof sid === 'string' ? sid : undefined;
  }

  /** Exotel's words for a refusal (RestException.Message). */
  refusal(a: CarrierHttpAnswer): string { return this.#api.refusal(a); }
}
