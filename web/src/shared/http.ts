/**
 * Requests of the pages. Authenticated ones go through the project's client library (src/client/http.ts,
 * browser-safe: fetch only); public ones (login, the demo) need no credential, which that helper insists on,
 * so they make their own request and read its answer with the library's readResponse (the same VoiceApiError).
 */
import { VoiceApiError } from '../../../src/client/types.js';
import { readResponse, requestJson } from '../../../src/client/http.js';

export { VoiceApiError, requestJson };

export async function publicRequest<T>(url: string, init: { method?: string; json?: unknown; form?: FormData; token?: string } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: BodyInit | undefined;
  if (init.json !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(init.json); }
  else if (init.form) body = init.form;
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  return readResponse<T>(await fetch(url, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body }));
}

/** A readable one-line message for any failure (API problem, network error). */
export function describeError(err: unknown): string {
  if (err instanceof VoiceApiError) {
    const fields = (err.body as { fields?: Array<{ path: string; message: string }> } | undefined)?.fields ?? [];
    const detail = fields.map((f) => `${f.path.replace(/^body\./, '')}: ${f.message}`).join('; ');
    return detail && !err.message.includes(detail) ? `${err.message} (${detail})` : err.message;
  }
  if (err instanceof TypeError) return 'The service could not be reached. Check your connection and try again.';
  return err instanceof Error ? err.message : String(err);
}
