/**
 * Twilio Media Streams wire format (carrier_protocols.md §1): JSON text frames only. In: connected, start,
 * media, dtmf, mark, stop. Out: media, mark, clear, each with the streamSid and exactly these keys.
 * Audio: base64 headerless audio/x-mulaw, 8000 Hz mono, 160 bytes per 20 ms.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isObj, parseJsonEvent } from './json_event.js';

export type TwilioInbound =
  | { event: 'connected'; protocol: string; version: string }
  | { event: 'start'; sequenceNumber: string; streamSid: string; start: {
      accountSid: string; streamSid: string; callSid: string; tracks: string[];
      customParameters: Record<string, string>; mediaFormat: { encoding: string; sampleRate: number; channels: number } } }
  | { event: 'media'; sequenceNumber: string; streamSid: string; media: { track: string; chunk: string; timestamp: string; payload: string } }
  | { event: 'dtmf'; sequenceNumber: string; streamSid: string; dtmf: { track: string; digit: string } }
  | { event: 'mark'; sequenceNumber: string; streamSid: string; mark: { name: string } }
  | { event: 'stop'; sequenceNumber: string; streamSid: string; stop: { accountSid: string; callSid: string } };

export type TwilioOutbound =
  | { event: 'media'; streamSid: string; media: { payload: string } }
  | { event: 'mark'; streamSid: string; mark: { name: string } }
  | { event: 'clear'; streamSid: string };

export class TwilioProtocolError extends Error { override name = 'TwilioProtocolError'; }

const str = (o: Record<string, unknown>, k: string) => {
  if (typeof o[k] !== 'string') throw new TwilioProtocolError(`${k} must be a string`);
  return o[k] as string;
};

/** Parses one inbound text frame; throws TwilioProtocolError on anything Twilio would not send. */
export function parseTwilioMessage(text: string): TwilioInbound {
  const m = parseJsonEvent(text, (why) => new TwilioProtocolError(why));
  switch (m.event) {
    case 'connected': return { event: 'connected', protocol: str(m, 'protocol'), version: str(m, 'version') };
    case 'start': {
      const s = m.start;
      if (!isObj(s) || !isObj(s.mediaFormat)) throw new TwilioProtocolError('start without start/mediaFormat');
      const cp = isObj(s.customParameters) ? s.customParameters : {};
      return {
        event: 'start', sequenceNumber: str(m, 'sequenceNumber'), streamSid: str(m, 'streamSid'),
        start: {
          accountSid: str(s, 'accountSid'), streamSid: str(s, 'streamSid'), callSid: str(s, 'callSid'),
          tracks: Array.isArray(s.tracks) ? s.tracks.map(String) : [],
          customParameters: Object.fromEntries(Object.entries(cp).map(([k, v]) => [k, String(v)])),
          mediaFormat: { encoding: String(s.mediaFormat.encoding), sampleRate: Number(s.mediaFormat.sampleRate), channels: Number(s.mediaFormat.channels) },
        },
      };
    }
    case 'media': {
      // 50 of these per second per call: checked in place and returned as parsed, not copied (a copy per frame
      // was garbage the collector paid for at a few hundred calls). Extra keys, if a carrier sent any, stay.
      if (!isObj(m.media)) throw new TwilioProtocolError('media without media');
      const md = m.media;
      str(m, 'sequenceNumber'); str(m, 'streamSid'); str(md, 'track'); str(md, 'chunk'); str(md, 'timestamp'); str(md, 'payload');
      return m as Extract<TwilioInbound, { event: 'media' }>;
    }
    case 'dtmf': {
      if (!isObj(m.dtmf)) throw new TwilioProtocolError('dtmf without dtmf');
      return { event: 'dtmf', sequenceNumber: str(m, 'sequenceNumber'), streamSid: str(m, 'streamSid'),
        dtmf: { track: str(m.dtmf, 'track'), digit: str(m.dtmf, 'digit') } };
    }
    case 'mark': {
      if (!isObj(m.mark)) throw new TwilioProtocolError('mark without mark');
      return { event: 'mark', sequenceNumber: str(m, 'sequenceNumber'), streamSid: str(m, 'streamSid'), mark: { name: str(m.mark, 'name') } };
    }
    case 'stop': {
      const s = isObj(m.stop) ? m.stop : {};
      return { event: 'stop', sequenceNumber: str(m, 'sequenceNumber'), streamSid: str(m, 'streamSid'),
        stop: { accountSid: String(s.accountSid ?? ''), callSid: String(s.callSid ?? '') } };
    }
    default: throw new TwilioProtocolError(`unknown event ${JSON.stringify(m.event)}`);
  }
}

/** Built as text (base64 needs no escaping): no object and no stringify per 20 ms frame. Same bytes as JSON.stringify. */
export const mediaMessage = (streamSid: string, mulaw: Uint8Array): string =>
  `{"event":"media","streamSid":${JSON.stringify(streamSid)},"media":{"payload":"${Buffer.from(mulaw.buffer, mulaw.byteOffset, mulaw.byteLength).toString('base64')}"}}`;
export const markMessage = (streamSid: string, name: string): string => JSON.stringify({ event: 'mark', streamSid, mark: { name } });
export const clearMessage = (streamSid: string): string => JSON.stringify({ event: 'clear', streamSid });

/** X-Twilio-Signature: base64 HMAC-SHA1(authToken, url + Σ sorted(name + value)) (§1.8). */
export function twilioSignature(authToken: string, url: string, params: Record<string, string | string[]> = {}): string {
  let data = url;
  for (const k of Object.keys(params).sort()) {
    const v = params[k];
    if (Array.isArray(v)) for (const x of [...new Set(v)].sort()) data += k + x;
    else data += k + v;
  }
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf-8')).digest('base64');
}

/** Constant-time check of a signature against the URL, with and without the scheme's default port (twilio-node). */
export function verifyTwilioSignature(authToken: string, url: string, signature: string | undefined, params: Record<string, string | string[]> = {}): boolean {
  if (!signature) return false;
  const got = Buffer.from(signature);
  const candidates = new Set([url]);
  try {
    const u = new URL(url);
    const defPort = u.protocol === 'wss:' || u.protocol === 'https:' ? '443' : '80';
    const withPort = `${u.hostname}:${defPort}`;
    if (url.includes(withPort)) candidates.add(url.replace(withPort, u.hostname));
    else if (!u.port) candidates.add(url.replace(u.host, withPort));
  } catch { /* the raw string is all we can sign */ }
  for (const c of candidates) {
    const want = Buffer.from(twilioSignature(authToken, c, params));
    if (want.length === got.length && timingSafeEqual(want, got)) return true;
  }
  return false;
}
