/**
 * Client library for the voice-calling service (the package's entry point). Node 20+: fetch + ws only.
 *
 *   const client = new VoiceClient({ baseUrl: 'http://127.0.0.1:8787/v1', apiKey: process.env.SERVICE_API_KEY });
 *   const call = await client.createCall({ to: '+14155550100', agent: { role: 'sales', voice: 'asha', language: 'en-IN' } });
 *   const live = client.listen(call.id);
 *   live.on('transcript', (t) => console.log(`${t.speaker}: ${t.text}`));
 *   live.on('escalation', () => live.transfer('+14155550199'));
 *   live.on('end', ({ reason }) => console.log('stream over:', reason));
 */
import { authHeader, query, requestJson, type Credentials } from './http.js';
import { CallListener, type ListenOptions } from './listener.js';
import type { Call, CreateCallInput } from './types.js';

export * from './types.js';
export { CallListener, type ListenOptions } from './listener.js';

export interface VoiceClientOptions {
  /** the service's base address, ending in /v1 (e.g. http://127.0.0.1:8787/v1) */
  baseUrl: string;
  /** a tenant JWT from POST /v1/auth/login */
  token?: string;
  /** or a service API key */
  apiKey?: string;
}

/** GET /v1/calls filters: newest first; page with limit (1-200) and cursor = next_cursor of the previous page. */
export interface ListCallsFilter {
  status?: string; agent_id?: string;
  /** ISO 8601 */
  created_after?: string; created_before?: string;
  limit?: number; cursor?: string; offset?: number;
}

export class VoiceClient {
  readonly baseUrl: string;
  #creds: Credentials;

  constructor(opts: VoiceClientOptions) {
    if (!/^https?:\/\//.test(opts.baseUrl)) throw new Error('baseUrl must be an http(s) URL ending in /v1');
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.#creds = { token: opts.token, apiKey: opts.apiKey };
    authHeader(this.#creds); // fail fast without credentials
  }

  /** Dispatches a call with an agent_id or inline agent runtime settings. */
  createCall(input: CreateCallInput): Promise<Call> {
    return requestJson<Call>(this.baseUrl, this.#creds, 'POST', '/calls/dispatch', input);
  }

  getCall(callId: string): Promise<Call> {
    return requestJson<Call>(this.baseUrl, this.#creds, 'GET', `/calls/${encodeURIComponent(callId)}`);
  }

  listCalls(filter: ListCallsFilter = {}): Promise<{ data: Call[]; next_cursor: string | null }> {
    return requestJson(this.baseUrl, this.#creds, 'GET', `/calls${query({ ...filter })}`);
  }

  hangup(callId: string): Promise<Call> {
    return requestJson<Call>(this.baseUrl, this.#creds, 'POST', `/calls/${encodeURIComponent(callId)}/hangup`);
  }

  /** Transfers a live call to a human (optional E.164 target): cold, or warm (the human hears `summary` first). */
  transfer(callId: string, target?: string, how: { mode?: 'cold' | 'warm'; summary?: string } = {}): Promise<unknown> {
    return requestJson(this.baseUrl, this.#creds, 'POST', `/calls/${encodeURIComponent(callId)}/transfer`, { ...(target ? { target } : {}), ...how });
  }

  /** Stored live items after a seq (what listen() replays on join). */
  events(callId: string, afterSeq = 0, limit = 500): Promise<{ data: unknown[]; next_after_seq: number }> {
    return requestJson(this.baseUrl, this.#creds, 'GET', `/calls/${encodeURIComponent(callId)}/events${query({ after_seq: afterSeq, limit })}`);
  }

  /** Live items of a call as typed events; reconnects and resumes by seq until the call ends or close(). */
  listen(callId: string, opts: ListenOptions = {}): CallListener {
    const url = `${this.baseUrl.replace(/^http/, 'ws')}/calls/${encodeURIComponent(callId)}/stream`;
    return new CallListener(callId, url, authHeader(this.#creds), (target) => this.transfer(callId, target), opts);
  }
}
