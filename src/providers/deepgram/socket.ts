/**
 * Opening a Deepgram live socket with `ws` (Node 20 has no WebSocket client): the API key goes in the
 * Authorization header as `Token <key>`, never in the URL. A refused handshake is classified once: a bad key or
 * request is not retried, a busy or failing service is.
 */
import WebSocket from 'ws';
import { AdapterError } from '../../adapters/types.js';

export function openListenSocket(url: string, apiKey: string, onRefused: (err: AdapterError) => void): WebSocket {
  const ws = new WebSocket(url, { headers: { Authorization: `Token ${apiKey}` }, handshakeTimeout: 5000, perMessageDeflate: false });
  // handled here, ws emits no 'error' for it: terminate() then emits 'error' and 'close' like any failed attempt
  ws.on('unexpected-response', (_req, res) => {
    onRefused(handshakeError(res.statusCode ?? 0));
    res.resume();
    ws.terminate();
  });
  return ws;
}

export function handshakeError(status: number): AdapterError {
  const what = `Deepgram refused the connection (${status})`;
  if (status === 401 || status === 403) return new AdapterError('stt', 'failed', `${what}: check DEEPGRAM_API_KEY`, false);
  if (status === 400 || status === 404 || status === 415) return new AdapterError('stt', 'invalid', `${what}: check DEEPGRAM_MODEL, the language and DEEPGRAM_API_URL`, false);
  return new AdapterError('stt', 'unavailable', what);
}
