/**
 * A local Cartesia TTS WebSocket, from the documented wire (src/providers/cartesia/README.md): the handshake carries
 * X-API-Key and Cartesia-Version (or api_key / cartesia_version in the query); a generation request
 * {model_id, transcript, voice:{mode:"id",id}, output_format:{container:"raw",encoding,sample_rate}, context_id,
 * continue, language} is answered on the same socket with {type:"chunk", context_id, data(base64), done:false,
 * status_code:206, step_time} messages, then {type:"done", context_id, done:true, status_code:200}; an invalid one
 * with {type:"error", …, status_code, title, message}; {context_id, cancel:true} stops the context's messages.
 * Failure injection: an error for the next context, a stream that stalls, a socket that drops mid-stream or
 * before any audio, a stall on a chosen sentence so a cancel lands mid-stream. Every context is recorded (request, bytes, canceled).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { mulawBytes, pcm16leBytes, toneVoice } from './g711.js';

export interface CartesiaContext {
  request: Record<string, any>; bytesSent: number; done: boolean; canceled: boolean; socket: number;
}

export interface CartesiaFakeOptions {
  apiKey: string;
  render?: (text: string, rateHz: number) => Int16Array;
  chunkBytes?: number;
  chunkGapMs?: number;
  /** contexts whose transcript matches send `afterBytes` and then nothing more: a cancel lands mid-stream on any load */
  stallWhen?: { transcript: (text: string) => boolean; afterBytes: number };
  /** voices GET /voices/{id} knows (404 for others); default: any id */
  voices?: string[];
}

type Injection = { kind: 'error'; status: number } | { kind: 'stall'; afterBytes: number } | { kind: 'drop'; afterBytes: number };

export interface CartesiaFake {
  url: string;
  contexts: Map<string, CartesiaContext>;
  /** handshakes accepted, and refused (wrong key) */
  connections: { accepted: number; refused: number; versions: string[] };
  /** what the next generation request gets instead of its whole audio */
  injectNext(i: Injection): void;
  /** resolves when a cancel for this context arrived */
  canceled(contextId: string): Promise<void>;
  close(): Promise<void>;
}

export async function startCartesiaFake(o: CartesiaFakeOptions): Promise<CartesiaFake> {
  const contexts = new Map<string, CartesiaContext>();
  const connections = { accepted: 0, refused: 0, versions: [] as string[] };
  const injections: Injection[] = [];
  const cancelWaiters = new Map<string, () => void>();
  const render = o.render ?? toneVoice;
  // Get Voice: GET /voices/{id} with the API key and a Cartesia-Version header
  const http: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const m = /^\/voices\/([^/?]+)$/.exec(req.url ?? '');
    if (req.method !== 'GET' || !m) return send(404, { error: 'Not found' });
    if (req.headers['x-api-key'] !== o.apiKey) return send(401, { error: 'Invalid API key' });
    if (!req.headers['cartesia-version']) return send(400, { error: 'Cartesia-Version header is required' });
    const id = decodeURIComponent(m[1]);
    if (o.voices && !o.voices.includes(id)) return send(404, { error: 'Voice not found' });
    send(200, { id, name: 'fake voice', description: 'a fake voice', language: 'en', is_public: true, created_at: '2026-01-01T00:00:00Z' });
  });
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req, socket, head) => {
    const u = new URL(req.url ?? '/', 'http://fake');
    const key = req.headers['x-api-key'] ?? u.searchParams.get('api_key');
    const version = req.headers['cartesia-version'] ?? u.searchParams.get('cartesia_version');
    if (u.pathname !== '/tts/websocket' || key !== o.apiKey || !version) {
      connections.refused++;
      socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{"error":"Invalid API key"}');
      return;
    }
    connections.versions.push(String(version));
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, ++connections.accepted));
  });

  function serve(ws: WebSocket, socketNo: number) {
    ws.on('error', () => {});
    const send = (m: object) => { if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m)); };
    ws.on('message', (data) => {
      let m: Record<string, any>;
      try { m = JSON.parse(String(data)); } catch { send({ type: 'error', done: true, status_code: 400, title: 'Invalid request', message: 'not JSON' }); return; }
      const id = m.context_id;
      if (m.cancel === true) {
        const c = contexts.get(id);
        if (c) c.canceled = true;
        cancelWaiters.get(id)?.();
        return;
      }
      const fail = (status: number, message: string) => send({ type: 'error', context_id: id, done: true, status_code: status, title: 'Invalid request', message, doc_url: 'https://docs.cartesia.ai' });
      const f = m.output_format ?? {};
      if (!id || typeof m.transcript !== 'string' || !m.model_id || m.voice?.mode !== 'id' || !m.voice?.id) return fail(400, 'missing field');
      if (f.container !== 'raw' || !['pcm_mulaw', 'pcm_s16le'].includes(f.encoding) || ![8000, 16000, 22050, 24000, 44100, 48000].includes(f.sample_rate)) {
        return fail(400, 'unsupported output_format');
      }
      const ctx: CartesiaContext = { request: m, bytesSent: 0, done: false, canceled: false, socket: socketNo };
      contexts.set(id, ctx);
      const inj = injections.shift()
        ?? (o.stallWhen?.transcript(m.transcript) ? { kind: 'stall' as const, afterBytes: o.stallWhen.afterBytes } : undefined);
      if (inj?.kind === 'error') return fail(inj.status, `injected ${inj.status}`);
      const pcm = render(m.transcript, f.sample_rate);
      const audio = f.encoding === 'pcm_mulaw' ? mulawBytes(pcm) : pcm16leBytes(pcm);
      void (async () => {
        const size = o.chunkBytes ?? 800;
        for (let at = 0; at < audio.length; at += size) {
          if (ctx.canceled || ws.readyState !== ws.OPEN) return;
          if (inj && ctx.bytesSent >= inj.afterBytes) {
            if (inj.kind === 'drop') ws.terminate();
            return; // stalled: nothing more for this context
          }
          const piece = audio.subarray(at, Math.min(at + size, audio.length));
          send({ type: 'chunk', context_id: id, data: Buffer.from(piece).toString('base64'), done: false, status_code: 206, step_time: 12.5 });
          ctx.bytesSent += piece.length;
          await new Promise((r) => setTimeout(r, o.chunkGapMs ?? 0));
        }
        if (ctx.canceled) return;
        if (inj?.kind === 'drop' && ctx.bytesSent >= inj.afterBytes) { ws.terminate(); return; }
        ctx.done = true;
        send({ type: 'done', context_id: id, done: true, status_code: 200 });
      })();
    });
  }

  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return {
    url: `ws://127.0.0.1:${(http.address() as AddressInfo).port}/tts/websocket`,
    contexts, connections,
    injectNext: (i) => { injections.push(i); },
    canceled: (id) => new Promise<void>((resolve) => {
      if (contexts.get(id)?.canceled) return resolve();
      cancelWaiters.set(id, resolve);
    }),
    close: () => new Promise<void>((r) => {
      for (const c of wss.clients) c.terminate();
      wss.close();
      http.closeAllConnections();
      http.close(() => r());
    }),
  };
}
