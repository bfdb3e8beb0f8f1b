/** JSON over fetch with the client's credential; problem+json answers become VoiceApiError. */
import { VoiceApiError } from './types.js';

export interface Credentials { token?: string; apiKey?: string }

export function authHeader(c: Credentials): Record<string, string> {
  const secret = c.token ?? c.apiKey;
  if (!secret) throw new Error('VoiceClient needs a token (JWT) or an apiKey');
  return { authorization: `Bearer ${secret}` };
}

export async function requestJson<T>(baseUrl: string, creds: Credentials, method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...authHeader(creds) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return readResponse<T>(await fetch(baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
}

/** The answer's JSON (or text), or a VoiceApiError carrying the problem document of a failed request. */
export async function readResponse<T>(res: Response): Promise<T> {
  const text = await res.text();
  let json: unknown;
  try { json = text ? JSON.parse(text) : undefined; } catch { json = text; }
  if (!res.ok) {
    const p = (json ?? {}) as { code?: string; detail?: string; title?: string };
    throw new VoiceApiError(p.detail ?? p.title ?? `HTTP ${res.status}`, res.status, p.code ?? 'http_error', json);
  }
  return json as T;
}

export const query = (params: Record<string, string | number | undefined>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
};
