/**
 * The carrier media edges: WebSocket /v1/media/<carrier>, one codec per carrier in front of the same call session.
 * /v1/media/twilio serves the simulator (and an adapter server's carrier) too.
 */
import type { RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';

export function mediaRoutes(t: RouteTable, deps: AppDeps): void {
  t.ws({
    path: '/media/twilio', tag: 'Media', auth: { kind: 'public' },
    summary: 'Carrier media stream speaking the Twilio Media Streams protocol exactly: in connected, start, media, dtmf, mark, stop; '
      + 'out media, mark, clear (JSON text, base64 mu-law 8 kHz, 20 ms, streamSid on every message). The call is named by '
      + 'start.customParameters.call_id and proven by start.customParameters.stream_token, the single-use capability the carrier '
      + 'was given with the call (a <Parameter>, never the URL). In live mode the upgrade must also carry a valid X-Twilio-Signature '
      + '(HMAC-SHA1 of the wss:// URL with TWILIO_AUTH_TOKEN), else 403. Closes 1008 without start within 5 s, without a valid '
      + 'capability, for a call this instance does not run or that has its stream already; 1007 on an invalid message.',
    handle: (req, socket, head) => deps.callEngine.mediaUpgrade('twilio', req, socket, head),
  });
  t.ws({
    path: '/media/plivo', tag: 'Media', auth: { kind: 'public' },
    summary: 'Plivo Audio Streaming (bidirectional <Stream>, audio/x-mulaw 8 kHz): in start, media, dtmf, playedStream, clearedAudio; '
      + 'out playAudio, checkpoint, clearAudio. The call proves itself with its single-use capability (extraHeaders); 404 unless CARRIER=plivo.',
    handle: (req, socket, head) => deps.callEngine.mediaUpgrade('plivo', req, socket, head),
  });
  t.ws({
    path: '/media/exotel', tag: 'Media', auth: { kind: 'public' },
    summary: 'Exotel Voicebot applet stream (16-bit PCM, 8 kHz): in connected, start, media, dtmf, mark, stop; out media (multiples of '
      + '320 bytes, ~100 ms), mark, clear. The URL our stream endpoint hands Exotel carries the call\'s capability; 404 unless CARRIER=exotel.',
    handle: (req, socket, head) => deps.callEngine.mediaUpgrade('exotel', req, socket, head),
  });
}
