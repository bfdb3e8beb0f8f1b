/**
 * Key checks for GET /v1/integrations?verify=true: one cheap authenticated read per configured provider, against
 * the base URL its settings name (so a regional endpoint, a self-hosted server or a local fake is what gets
 * asked): the account (Twilio, Plivo), the account's calls list (Exotel's documented authenticated example), the
 * projects (Deepgram), the model list (OpenAI-compatible), the user (ElevenLabs), the voice (Cartesia), one contact
 * (HubSpot), the profile (Cal.com), the phone number (WhatsApp). Results: `verified` (2xx), `rejected` (any other
 * 4xx: the provider refused these settings; its status given), `unreachable` (no answer within the deadline, or a
 * 408/429/5xx: nothing is known about the keys). Key values never appear: not in the request line shown (settings
 * are named, not filled in), and the provider's words are redacted of them.
 */
import type { Config } from '../config.js';
import { errorDetail } from './http/errors.js';
import { sendOnce } from './http/request.js';
import type { AdapterError } from '../adapters/types.js';

export interface Verification {
  result: 'verified' | 'rejected' | 'unreachable';
  /** the read, with settings named instead of their values, e.g. GET https://api.twilio.com/2010-04-01/Accounts/{TWILIO_ACCOUNT_SID}.json */
  checked: string;
  /** the provider's HTTP status, when it answered */
  http_status?: number;
  /** the provider's own words (redacted), or why it could not be reached */
  detail?: string;
}

interface Probe {
  adapter: AdapterError['adapter'];
  /** the URL with {SETTING} placeholders */
  url: string;
  headers?: Record<string, string>;
  basic?: readonly [string, string];
}

const trim = (u: string) => u.replace(/\/+$/, '');
/** the https:// (or http://) origin and path prefix of a WebSocket URL, less its last `strip` path */
function restBase(wsUrl: string, strip: RegExp): string {
  const u = new URL(wsUrl);
  u.protocol = u.protocol === 'ws:' ? 'http:' : u.protocol === 'wss:' ? 'https:' : u.protocol;
  return trim(`${u.origin}${u.pathname.replace(strip, '')}`);
}

/** The read that checks a provider's keys; placeholders {NAME} stand for settings. */
function probeOf(provider: string, c: Config): Probe | undefined {
  switch (provider) {
    case 'twilio': return { adapter: 'carrier', url: `${trim(c.TWILIO_API_BASE_URL)}/2010-04-01/Accounts/{TWILIO_ACCOUNT_SID}.json`, basic: ['{TWILIO_ACCOUNT_SID}', '{TWILIO_AUTH_TOKEN}'] };
    case 'plivo': return { adapter: 'carrier', url: `${trim(c.PLIVO_API_BASE_URL)}/v1/Account/{PLIVO_AUTH_ID}/`, basic: ['{PLIVO_AUTH_ID}', '{PLIVO_AUTH_TOKEN}'] };
    case 'exotel': return { adapter: 'carrier', url: `${trim(c.EXOTEL_API_BASE_URL)}/v1/Accounts/{EXOTEL_ACCOUNT_SID}/Calls.json?PageSize=1`, basic: ['{EXOTEL_API_KEY}', '{EXOTEL_API_TOKEN}'] };
    case 'deepgram': return { adapter: 'stt', url: `${restBase(c.DEEPGRAM_API_URL, /\/listen$/)}/projects`, headers: { authorization: 'Token {DEEPGRAM_API_KEY}' } };
    case 'openai': return { adapter: 'dialog', url: `${trim(c.OPENAI_BASE_URL)}/models`, headers: { authorization: 'Bearer {OPENAI_API_KEY}' } };
    case 'elevenlabs': return { adapter: 'tts', url: `${trim(c.ELEVENLABS_API_URL)}/v1/user`, headers: { 'xi-api-key': '{ELEVENLABS_API_KEY}' } };
    case 'cartesia': return { adapter: 'tts', url: `${restBase(c.CARTESIA_API_URL, /\/tts\/websocket$/)}/voices/{CARTESIA_VOICE_ID}`,
      headers: { 'x-api-key': '{CARTESIA_API_KEY}', 'cartesia-version': c.CARTESIA_VERSION } };
    case 'hubspot': return { adapter: 'tool', url: `${trim(c.HUBSPOT_API_URL)}/crm/v3/objects/contacts?limit=1`, headers: { authorization: 'Bearer {HUBSPOT_API_KEY}' } };
    case 'calcom': return { adapter: 'tool', url: `${trim(c.CALCOM_API_URL)}/v2/me`, headers: { authorization: 'Bearer {CALCOM_API_KEY}' } };
    case 'whatsapp': return { adapter: 'tool', url: `${trim(c.WHATSAPP_API_URL)}/{WHATSAPP_PHONE_NUMBER_ID}`, headers: { authorization: 'Bearer {WHATSAPP_API_TOKEN}' } };
    default: return undefined;
  }
}

const PLACEHOLDER = /\{([A-Z][A-Z0-9_]*)\}/g;

export const VERIFY_TIMEOUT_MS = 5000;

/** Checks one provider's keys; undefined when there is no read for it. */
export async function verifyProvider(provider: string, config: Config, timeoutMs = VERIFY_TIMEOUT_MS): Promise<Verification | undefined> {
  const probe = probeOf(provider, config);
  if (!probe) return undefined;
  const env = config as unknown as Record<string, unknown>;
  const used = new Set<string>();
  const fill = (s: string) => s.replace(PLACEHOLDER, (_, name: string) => { used.add(name); return encodeURIComponent(String(env[name] ?? '')); });
  const fillRaw = (s: string) => s.replace(PLACEHOLDER, (_, name: string) => { used.add(name); return String(env[name] ?? ''); });
  const url = fill(probe.url);
  const headers = Object.fromEntries(Object.entries(probe.headers ?? {}).map(([k, v]) => [k, fillRaw(v)]));
  const basic = probe.basic ? [fillRaw(probe.basic[0]), fillRaw(probe.basic[1])] as const : undefined;
  const secrets = [...used].map((n) => String(env[n] ?? ''));
  const checked = `GET ${probe.url}`;
  try {
    const a = await sendOnce({ adapter: probe.adapter, name: provider, method: 'GET', url, headers, basic, timeoutMs, secrets }, true);
    if (a.status >= 200 && a.status < 300) return { result: 'verified', checked, http_status: a.status };
    const detail = errorDetail(a.text, secrets) || undefined;
    const busy = a.status === 408 || a.status === 429 || a.status >= 500;
    return { result: busy ? 'unreachable' : 'rejected', checked, http_status: a.status, ...(detail ? { detail } : {}) };
  } catch (err) {
    // sendOnce's errors carry no request data and are redacted of `secrets` already
    return { result: 'unreachable', checked, detail: (err as Error).message };
  }
}
