/**
 * A local ElevenLabs text-to-speech HTTP streaming endpoint, from the documented wire (src/providers/elevenlabs/README.md): POST /v1/text-to-speech/{voice_id}/stream?output_format=ulaw_8000|pcm_<rate>, header xi-api-key, JSON
 * {text, model_id, …}; 200 with a chunked body of raw audio (headerless mu-law or PCM16 LE); errors as
 * {"detail": {"status", "message"}}. Failure injection: the next answers' statuses (401, 429 with retry-after,
 * 500), a stream that stalls after some bytes, a stall on a chosen sentence so an abort lands mid-stream. Every request is recorded,
 * with whether the client went away before the body ended (an aborted synthesis).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mulawBytes, pcm16leBytes, toneVoice } from './g711.js';

export interface ElevenLabsRequest {
  voiceId: string; outputFormat: string | null; apiKey: string | undefined; body: { text?: string; model_id?: string; [k: string]: unknown };
  bytesSent: number;
  /** the fake ended its answer (audio or error) */
  finished: boolean;
  /** the client went away before the answer ended (barge-in, a stall deadline) */
  aborted: boolean;
  closed: boolean;
}

export interface ElevenLabsFakeOptions {
  apiKey: string;
  /** renders text as PCM16 at a rate (default: a tone); the simulated call passes the SimVoice encoder */
  render?: (text: string, rateHz: number) => Int16Array;
  /** bytes per write and the pause between writes (ms), for a stream that takes time */
  chunkBytes?: number;
  chunkGapMs?: number;
  /** requests whose text matches send `afterBytes` and then hold the response open: a cut lands mid-stream on any load */
  stallWhen?: { text: (text: string) => boolean; afterBytes: number };
}

export interface ElevenLabsFake {
  url: string;
  requests: ElevenLabsRequest[];
  /** answers the next requests with these statuses, in order, before any audio */
  failNext(...failures: Array<{ status: number; retryAfter?: string }>): void;
  /** the next stream sends this many bytes and then nothing more, keeping the response open */
  stallNextAfter(bytes: number): void;
  /** resolves once a request's response ended or its client went away */
  settled(i: number): Promise<ElevenLabsRequest>;
  close(): Promise<void>;
}

const ULAW_RATE = 8000;

export async function startElevenLabsFake(o: ElevenLabsFakeOptions): Promise<ElevenLabsFake> {
  const failures: Array<{ status: number; retryAfter?: string }> = [];
  const requests: ElevenLabsRequest[] = [];
  const waiters = new Map<number, Array<() => void>>();
  let stallAfter: number | undefined;
  const render = o.render ?? toneVoice;
  const settle = (i: number) => { for (const w of waiters.get(i) ?? []) w(); waiters.delete(i); };

  const server: Server = createServer((req, res) => { handle(req, res).catch(() => res.destroy()); });
  async function handle(req: IncomingMessage, res: ServerResponse) {
    const u = new URL(req.url ?? '/', 'http://fake');
    const m = /^\/v1\/text-to-speech\/([^/]+)\/stream$/.exec(u.pathname);
    let raw = '';
    for await (const c of req) raw += c;
    const error = (status: number, s: string, message: string, headers: Record<string, string> = {}) => {
      if (r) r.finished = true;
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ detail: { status: s, message } }));
    };
    let r: ElevenLabsRequest | undefined;
    // Get user info: GET /v1/user with xi-api-key
    if (req.method === 'GET' && u.pathname === '/v1/user') {
      if (req.headers['xi-api-key'] !== o.apiKey) return error(401, 'invalid_api_key', 'Invalid API key');
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
        user_id: 'fake-user', subscription: { tier: 'starter', character_count: 0, character_limit: 30000, status: 'active' }, is_new_user: false,
      }));
    }
    if (req.method !== 'POST' || !m) return error(404, 'not_found', 'Not Found');
    r = { voiceId: decodeURIComponent(m[1]), outputFormat: u.searchParams.get('output_format'), apiKey: req.headers['xi-api-key'] as string | undefined,
      body: {}, bytesSent: 0, finished: false, aborted: false, closed: false };
    const index = requests.push(r) - 1;
    const mine = r;
    res.on('close', () => { mine.closed = true; mine.aborted = !mine.finished; settle(index); });
    try { r.body = JSON.parse(raw); } catch { return error(400, 'invalid_json', 'body is not JSON'); }
    if (r.apiKey !== o.apiKey) return error(401, 'invalid_api_key', 'Invalid API key');
    const injected = failures.shift();
    if (injected) {
      return error(injected.status, injected.status === 429 ? 'too_many_concurrent_requests' : 'internal_error', `injected ${injected.status}`,
        injected.retryAfter ? { 'retry-after': injected.retryAfter } : {});
    }
    if (typeof r.body.text !== 'string' || !r.body.text) return error(422, 'invalid_text', 'text is required');
    const format = r.outputFormat ?? 'mp3_44100_128';
    let audio: Uint8Array;
    if (format === 'ulaw_8000') audio = mulawBytes(render(r.body.text, ULAW_RATE));
    else if (/^pcm_(8000|16000|22050|24000|44100|48000)$/.test(format)) audio = pcm16leBytes(render(r.body.text, Number(format.slice(4))));
    else return error(400, 'unsupported_format', `output_format ${format} is not served by this fake`);
    res.writeHead(200, { 'content-type': format === 'ulaw_8000' ? 'audio/basic' : 'audio/pcm', 'transfer-encoding': 'chunked' });
    const stall = stallAfter ?? (o.stallWhen?.text(r.body.text) ? o.stallWhen.afterBytes : undefined);
    stallAfter = undefined;
    const size = o.chunkBytes ?? 800;
    for (let at = 0; at < audio.length; at += size) {
      if (res.destroyed) return;
      if (stall !== undefined && r.bytesSent >= stall) return; // stalled: the response stays open, sending nothing
      const piece = audio.subarray(at, Math.min(audio.length, at + size, stall !== undefined ? stall : Infinity));
      res.write(piece);
      r.bytesSent += piece.length;
      if (o.chunkGapMs) await new Promise((resolve) => setTimeout(resolve, o.chunkGapMs));
    }
    if (stall !== undefined) return;
    r.finished = true;
    res.end();
  }
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    failNext: (...f) => { failures.push(...f); },
    stallNextAfter: (bytes) => { stallAfter = bytes; },
    settled: (i) => new Promise((resolve) => {
      const r = requests[i];
      if (r?.closed) return resolve(r);
      const list = waiters.get(i) ?? [];
      list.push(() => resolve(requests[i]));
      waiters.set(i, list);
    }),
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
