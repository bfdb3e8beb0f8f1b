/**
 * The Twilio Media Streams codec (README.md, "Media"): JSON text frames only. In: connected, start, media, dtmf,
 * mark, stop. Out: media, mark, clear, each with the streamSid and exactly these keys (Twilio refuses anything
 * else, errors 31950/31951). Audio: base64 headerless audio/x-mulaw, 8000 Hz mono, 160 bytes per 20 ms. The call is
 * named by start.customParameters.call_id and proven by start.customParameters.stream_token (our <Parameter>s).
 * The simulator's callees speak this protocol too.
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { mulawDecode } from '../../audio/index.js';
import { CodecStream } from '../codec_stream.js';
import { isObj, parseJsonEvent } from '../json_event.js';
import type { MediaCodec } from '../media_socket.js';
import { STREAM_TOKEN_PARAMETER } from '../contract.js';

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


type TwilioStart = Extract<TwilioInbound, { event: 'start' }>['start'];

/** Our side of one media stream. */
export class TwilioStream extends CodecStream<TwilioInbound> {
  constructor(ws: WebSocket, readonly streamSid: string, readonly start: TwilioStart,
    /** the socket under `ws` (the upgrade's), corked by batch() */
    socket?: Pick<Duplex, 'cork' | 'uncork'>) {
    super(ws, start.callSid, start.customParameters, socket);
  }

  /** an inbound message after start (another stream's are ignored) */
  deliver(m: TwilioInbound): void {
    if (!('streamSid' in m) || m.streamSid !== this.streamSid) return;
    if (m.event === 'media') {
      // the call's one decode of this frame
      if (m.media.track === 'inbound') this.input({ kind: 'audio', pcm: mulawDecode(Buffer.from(m.media.payload, 'base64')) });
    } else if (m.event === 'mark') this.input({ kind: 'mark', name: m.mark.name });
    else if (m.event === 'dtmf') this.input({ kind: 'dtmf', digit: m.dtmf.digit });
    else if (m.event === 'stop') this.end('stop');
  }

  sendMedia(frame: Uint8Array): void { this.send(mediaMessage(this.streamSid, frame)); }
  sendMark(name: string): void { this.send(markMessage(this.streamSid, name)); }
  sendClear(): void { this.send(clearMessage(this.streamSid)); }
}

export const twilioCodec: MediaCodec<TwilioInbound> = {
  name: 'twilio',
  parse: parseTwilioMessage,
  startOf: (m) => (m.event === 'start'
    ? { claim: { callId: m.start.customParameters.call_id ?? '', token: m.start.customParameters[STREAM_TOKEN_PARAMETER] } } : undefined),
  open: (m, { ws, socket }) => {
    const s = (m as Extract<TwilioInbound, { event: 'start' }>).start;
    return new TwilioStream(ws, s.streamSid, s, socket);
  },
};
