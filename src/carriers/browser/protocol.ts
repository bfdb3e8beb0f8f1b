/**
 * The browser media protocol (README.md): one WebSocket per browser leg of a call, JSON text frames only, strictly
 * parsed (an unknown event, a missing or extra key, a wrong type or a payload over its limit is refused: the socket
 * closes 1007). In: start, media, mark, dtmf, stop. Out: started, media, mark, clear, item. Audio is base64: PCM16
 * little-endian at 16 or 8 kHz, or mu-law at 8 kHz, as the start declares; what goes out is the call's own audio,
 * 8 kHz in the same encoding. Written for a web page and for any other browser leg (an operator's softphone).
 */
import { isObj, parseJsonEvent } from '../json_event.js';

export const BROWSER_ENCODINGS = ['pcm16', 'mulaw'] as const;
export type BrowserEncoding = (typeof BROWSER_ENCODINGS)[number];
export interface BrowserMediaFormat { encoding: BrowserEncoding; sample_rate: number }

/** what a start may declare: PCM16 at 8 or 16 kHz, mu-law at 8 kHz */
export const BROWSER_FORMATS: readonly BrowserMediaFormat[] = [
  { encoding: 'pcm16', sample_rate: 16_000 }, { encoding: 'pcm16', sample_rate: 8000 }, { encoding: 'mulaw', sample_rate: 8000 },
];
/** the rate of the audio the server sends: the call's (every leg of a call is 8 kHz inside) */
export const BROWSER_OUT_RATE_HZ = 8000;
/** the most audio one media message may carry, ms (a page sends ~20-100 ms; a second is plenty) */
export const MAX_MEDIA_MS = 1000;
/** a mark name's longest length (ours are short: `r12/e3/f40`) */
const MAX_MARK_CHARS = 128;
/** capability tokens are ~80 characters; anything much longer is not one */
const MAX_TOKEN_CHARS = 256;
const CALL_ID = /^call_[0-9a-f]{24}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const DIGITS = /^[0-9*#A-D]$/;

export type BrowserInbound =
  | { event: 'start'; call_id: string; token: string; media_format: BrowserMediaFormat }
  | { event: 'media'; payload: string }
  | { event: 'mark'; name: string }
  | { event: 'dtmf'; digit: string }
  | { event: 'stop' };

export class BrowserProtocolError extends Error { override name = 'BrowserProtocolError'; }

const fail = (why: string) => new BrowserProtocolError(why);

/** exactly these keys, besides `event` */
function keys(m: Record<string, unknown>, allowed: string[]): void {
  for (const k of Object.keys(m)) if (k !== 'event' && !allowed.includes(k)) throw fail(`unexpected key ${JSON.stringify(k.slice(0, 40))}`);
}

function str(o: Record<string, unknown>, k: string, max: number): string {
  const v = o[k];
  if (typeof v !== 'string') throw fail(`${k} must be a string`);
  if (v.length > max) throw fail(`${k} is longer than ${max} characters`);
  return v;
}

/** Base64 characters of at most MAX_MEDIA_MS of 16 kHz PCM16, the largest format. */
const MAX_PAYLOAD_CHARS = Math.ceil((16_000 * 2 * MAX_MEDIA_MS) / 1000 / 3) * 4;

/** Parses one text frame; throws BrowserProtocolError on anything the protocol does not allow. */
export function parseBrowserMessage(text: string): BrowserInbound {
  const m = parseJsonEvent(text, fail);
  switch (m.event) {
    case 'start': {
      keys(m, ['call_id', 'token', 'media_format']);
      const f = m.media_format;
      if (!isObj(f)) throw fail('media_format must be an object');
      keys({ event: '', ...f }, ['encoding', 'sample_rate']);
      if (typeof f.encoding !== 'string' || typeof f.sample_rate !== 'number') throw fail('media_format needs encoding (string) and sample_rate (number)');
      const callId = str(m, 'call_id', 64);
      if (!CALL_ID.test(callId)) throw fail('call_id is not a call id');
      return { event: 'start', call_id: callId, token: str(m, 'token', MAX_TOKEN_CHARS),
        media_format: { encoding: f.encoding as BrowserEncoding, sample_rate: f.sample_rate } };
    }
    case 'media': {
      keys(m, ['payload']);
      const payload = str(m, 'payload', MAX_PAYLOAD_CHARS);
      if (payload.length % 4 !== 0 || !BASE64.test(payload)) throw fail('payload is not base64');
      return { event: 'media', payload };
    }
    case 'mark': keys(m, ['name']); return { event: 'mark', name: str(m, 'name', MAX_MARK_CHARS) };
    case 'dtmf': {
      keys(m, ['digit']);
      const digit = str(m, 'digit', 1);
      if (!DIGITS.test(digit)) throw fail('digit must be one of 0-9 * # A-D');
      return { event: 'dtmf', digit };
    }
    case 'stop': keys(m, []); return { event: 'stop' };
    default: throw fail(`unknown event ${JSON.stringify(m.event.slice(0, 40))}`);
  }
}

/** Why a start's format is refused (close 1003 with this reason), or undefined when it is one of BROWSER_FORMATS. */
export function formatRefusal(f: BrowserMediaFormat): string | undefined {
  if (BROWSER_FORMATS.some((x) => x.encoding === f.encoding && x.sample_rate === f.sample_rate)) return undefined;
  return 'unsupported media_format (pcm16 at 16000 or 8000 Hz, or mulaw at 8000 Hz)';
}

/** The most bytes one media message may decode to in format `f`. */
export const maxPayloadBytes = (f: BrowserMediaFormat): number => ((f.encoding === 'pcm16' ? 2 : 1) * f.sample_rate * MAX_MEDIA_MS) / 1000;

// Outbound messages, built as text (base64 needs no escaping).
export const startedMessage = (callId: string, f: BrowserMediaFormat): string =>
  JSON.stringify({ event: 'started', call_id: callId, media_format: { encoding: f.encoding, sample_rate: BROWSER_OUT_RATE_HZ } });
export const mediaMessage = (bytes: Uint8Array): string =>
  `{"event":"media","payload":"${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}"}`;
export const markMessage = (name: string): string => JSON.stringify({ event: 'mark', name });
export const CLEAR_MESSAGE = '{"event":"clear"}';
export const itemMessage = (item: object): string => JSON.stringify({ event: 'item', item });
