/**
 * A browser leg of a call (README.md): a web page, or any other browser client such as an operator's softphone,
 * streams its microphone over a WebSocket and plays the call's audio, with the codec of every carrier in front of
 * the same call session. `browserMediaSocket(o)` is the socket (the shared media socket with this codec); what a
 * started leg is handed to is the caller's `onStream`.
 */
import { mediaSocket, type MediaSocket, type MediaSocketOptions } from '../media_socket.js';
import { browserCodec } from './codec.js';

/** The media WebSocket of browser legs: upgrade, limits, start timeout, capability and hand-off as for carriers. */
export const browserMediaSocket = (o: MediaSocketOptions): MediaSocket => mediaSocket(browserCodec, o);

export { browserCodec, BrowserStream } from './codec.js';
export { LiveItemTap } from './live_items.js';
export {
  BROWSER_FORMATS, BROWSER_OUT_RATE_HZ, BrowserProtocolError, MAX_MEDIA_MS, parseBrowserMessage,
  type BrowserEncoding, type BrowserInbound, type BrowserMediaFormat,
} from './protocol.js';
