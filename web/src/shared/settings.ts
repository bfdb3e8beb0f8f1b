/**
 * Run-time settings served by the service at /config.json (src/api/web_pages.ts): the API base of the site
 * (PUBLIC_VOICE_API_ENDPOINT) and of the operator app (SERVICE_API_BASE). Unset means this page's own origin.
 */
export interface RuntimeSettings {
  public_voice_api_endpoint: string | null;
  service_api_base: string | null;
  service_mode: 'simulator' | 'live';
  audio_max_seconds: number;
}

export async function loadSettings(): Promise<RuntimeSettings> {
  const res = await fetch('/config.json', { cache: 'no-store', headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`could not read the page settings (HTTP ${res.status})`);
  return (await res.json()) as RuntimeSettings;
}

/** The API base to use: the configured one, or /v1 on the origin that served the page. */
export const resolveBase = (configured: string | null): string =>
  (configured ?? new URL('/v1', location.origin).href).replace(/\/+$/, '');

/** ws(s):// form of an http(s) base. */
export const socketBase = (httpBase: string): string => httpBase.replace(/^http/, 'ws');
