/** The carrier media edge: WebSocket /v1/media/twilio (Twilio Media Streams, see src/media/twilio_edge.ts). */
import type { RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';

export function mediaRoutes(t: RouteTable, deps: AppDeps): void {
  t.ws({
    path: '/media/twilio', tag: 'Media', auth: { kind: 'public' },
    summary: 'Carrier media stream speaking the Twilio Media Streams protocol exactly: in connected, start, media, dtmf, mark, stop; '
      + 'out media, mark, clear (JSON text, base64 mu-law 8 kHz, 20 ms, streamSid on every message). The call is named by '
      + 'start.customParameters.call_id. In live mode the upgrade must carry a valid X-Twilio-Signature (HMAC-SHA1 of the '
      + 'wss:// URL with TWILIO_AUTH_TOKEN), else 403. Closes 1008 for a call this instance does not run, 1007 on an invalid message.',
    handle: (req, socket, head) => deps.callEngine.mediaUpgrade(req, socket, head),
  });
}
