/**
 * Fake Plivo (reference 1.2): Make Call (JSON, Basic auth) under /v1/Account/{auth_id}/Call/, the answer_url and
 * hangup_url requests with V3 signatures, and an audio-stream client that connects to the answer XML's <Stream>
 * URL and speaks start/media (numeric sequenceNumber, epoch-ms timestamps), answers checkpoint with playedStream
 * once the audio before it played, clearAudio with clearedAudio; DELETE .../Call/{uuid}/ hangs up (204).
 */
import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import WebSocket from 'ws';
import type { CallerAudio } from './caller_audio.js';
import { basicAuth, hex, postForm, readBody, sendJson, sleep, uuid } from './http.js';
import { PhoneLine, type LineStats } from './phone.js';
import type { FakeSettings } from './settings.js';
import { elements } from './xml.js';

interface PlivoCall {
  uuid: string; requestUuid: string; body: Record<string, string>; answeredAt?: number; ended: boolean;
  ws?: WebSocket; line?: PhoneLine; streamId: string; seq: number;
}

/**
 * X-Plivo-Signature-V3 (reference 1.2.7): base64 HMAC-SHA256(token, url + "?" + sorted key+value params +
 * "." + nonce) for a POST with parameters; a GET signs the URL with its query sorted.
 */
export function plivoV3Signature(token: string, method: 'GET' | 'POST', url: string, params: Record<string, string>, nonce: string): string {
  const u = new URL(url);
  const query = [...u.searchParams].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1));
  const base = `${u.protocol}//${u.host}${u.pathname}`;
  let data: string;
  if (method === 'GET') {
    const all = [...query, ...Object.entries(params)].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1));
    data = all.length ? `${base}?${all.map(([k, v]) => `${k}=${v}`).join('&')}` : base;
  } else {
    const keys = Object.keys(params).sort();
    const post = keys.map((k) => `${k}${params[k]}`).join('');
    data = base + (query.length || keys.length ? `?${query.map(([k, v]) => `${k}=${v}`).join('&')}` : '') + (query.length && keys.length ? '.' : '') + post;
  }
  return createHmac('sha256', token).update(`${data}.${nonce}`).digest('base64');
}

export class FakePlivo {
  readonly calls = new Map<string, PlivoCall>();
  readonly callbacks: Array<{ url: string; status: number; params: Record<string, string> }> = [];
  constructor(private readonly s: FakeSettings, private readonly audio: CallerAudio, private readonly stats: LineStats,
    private readonly id = process.env.PLIVO_AUTH_ID ?? '', private readonly token = process.env.PLIVO_AUTH_TOKEN ?? '') {}

  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const m = /^\/v1\/Account\/([^/]+)\/Call\/(?:([^/]+)\/)?$/.exec(path);
    if (!m) return false;
    const auth = basicAuth(req);
    if (!this.id || m[1] !== this.id || auth?.user !== this.id || auth.pass !== this.token) {
      sendJson(res, 401, { api_id: uuid(), error: 'Authentication failed' });
      return true;
    }
    if (!m[2] && req.method === 'POST') {
      let body: Record<string, unknown>;
      try { body = JSON.parse(await readBody(req)) as Record<string, unknown>; } catch { sendJson(res, 400, { api_id: uuid(), error: 'invalid JSON' }); return true; }
      const missing = ['from', 'to', 'answer_url'].filter((k) => typeof body[k] !== 'string' || !body[k]);
      if (missing.length) { sendJson(res, 400, { api_id: uuid(), error: `${missing.join(', ')} required` }); return true; }
      const call: PlivoCall = { uuid: uuid(), requestUuid: uuid(), body: Object.fromEntries(Object.entries(body).map(([k, v]) => [k, String(v)])), ended: false, streamId: uuid(), seq: 0 };
      this.calls.set(call.uuid, call);
      sendJson(res, 201, { message: 'call fired', request_uuid: call.requestUuid, api_id: uuid() });
      void this.#run(call);
      return true;
    }
    const call = m[2] ? this.calls.get(m[2]) : undefined;
    if (!call || call.ended) { sendJson(res, 404, { api_id: uuid(), error: 'not found' }); return true; }
    if (req.method === 'DELETE') { res.writeHead(204).end(); void this.#end(call); return true; }
    if (req.method === 'POST') { await readBody(req); sendJson(res, 202, { api_id: uuid(), message: 'call transferred' }); void this.#end(call); return true; }
    return false;
  }

  async #run(call: PlivoCall): Promise<void> {
    const b = call.body;
    const params = (status: string): Record<string, string> => ({ CallUUID: call.uuid, From: b.from, To: b.to, Direction: 'outbound',
      CallStatus: status, ALegUUID: call.uuid, ALegRequestUUID: call.requestUuid });
    if (b.ring_url) { await sleep(50); await this.#post(b.ring_url, params('ringing')); }
    await sleep(100);
    if (call.ended) return;
    call.answeredAt = Date.now();
    const answer = await this.#post(b.answer_url, params('in-progress'));
    const stream = elements(answer.body, 'Stream')[0];
    if (!stream?.text || stream.attrs.bidirectional !== 'true') { this.stats.protocolErrors++; await this.#end(call); return; }
    const contentType = stream.attrs.contentType ?? 'audio/x-l16;rate=8000';
    if (!contentType.startsWith('audio/x-mulaw')) this.stats.protocolErrors++; // this fake speaks mu-law only
    this.#connect(call, stream.text, stream.attrs.extraHeaders ?? '');
  }

  #connect(call: PlivoCall, url: string, extraHeaders: string): void {
    const nonce = hex(10);
    const ws = new WebSocket(url, { headers: { 'X-Plivo-Signature-V3': plivoV3Signature(this.token, 'GET', url, {}, nonce), 'X-Plivo-Signature-V3-Nonce': nonce } });
    call.ws = ws;
    const extra = extraHeaders.replace(/,/g, ';');
    const send = (msg: Record<string, unknown>) => { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg)); };
    ws.on('error', () => { this.stats.protocolErrors++; });
    ws.on('open', () => {
      send({ event: 'start', sequenceNumber: ++call.seq, start: { callId: call.uuid, streamId: call.streamId, accountId: this.id, tracks: ['inbound'],
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 } }, extra_headers: extra });
      call.line = new PhoneLine({
        sendCaller: (audio, i) => send({ event: 'media', sequenceNumber: ++call.seq, streamId: call.streamId,
          media: { track: 'inbound', timestamp: String(Date.now()), chunk: i + 1, payload: Buffer.from(audio.next(160)).toString('base64') }, extra_headers: extra }),
        // Plivo reports a checkpoint only when what preceded it played; a clear answers with clearedAudio instead
        markReached: (name, cleared) => { if (!cleared) send({ event: 'playedStream', sequenceNumber: ++call.seq, streamId: call.streamId, name }); },
      }, this.audio, this.stats, 20, this.s.underrunWindowMs);
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) { this.stats.protocolErrors++; return; }
      let msg: { event?: string; streamId?: string; name?: string; media?: { contentType?: string; sampleRate?: number; payload?: string } };
      try { msg = JSON.parse(String(data)); } catch { this.stats.protocolErrors++; return; }
      if (msg.event === 'playAudio' && typeof msg.media?.payload === 'string') {
        if (msg.media.contentType !== 'audio/x-mulaw' || Number(msg.media.sampleRate) !== 8000) this.stats.protocolErrors++;
        const bytes = Buffer.from(msg.media.payload, 'base64').length;
        if (bytes % 160) this.stats.protocolErrors++;
        call.line?.agentFrames(Math.ceil(bytes / 160));
      } else if (msg.event === 'checkpoint' && typeof msg.name === 'string') {
        if (msg.streamId !== call.streamId) this.stats.protocolErrors++;
        call.line?.mark(msg.name);
      } else if (msg.event === 'clearAudio') {
        if (msg.streamId !== call.streamId) this.stats.protocolErrors++;
        call.line?.clear();
        send({ sequenceNumber: ++call.seq, event: 'clearedAudio', streamId: call.streamId });
      } else this.stats.protocolErrors++;
    });
    ws.on('close', () => { call.line?.close(); if (!call.ended) void this.#end(call); });
  }

  async #end(call: PlivoCall): Promise<void> {
    if (call.ended) return;
    call.ended = true;
    call.ws?.close(1000);
    call.line?.close();
    const b = call.body;
    if (!b.hangup_url) return;
    const duration = String(call.answeredAt ? Math.round((Date.now() - call.answeredAt) / 1000) : 0);
    await this.#post(b.hangup_url, { CallUUID: call.uuid, From: b.from, To: b.to, Direction: 'outbound', CallStatus: call.answeredAt ? 'completed' : 'no-answer',
      HangupCause: 'NORMAL_CLEARING', Duration: duration, BillDuration: duration, ALegUUID: call.uuid, ALegRequestUUID: call.requestUuid });
  }

  async #post(url: string, params: Record<string, string>): Promise<{ status: number; body: string }> {
    const nonce = hex(10);
    const r = await postForm(url, params, { 'X-Plivo-Signature-V3': plivoV3Signature(this.token, 'POST', url, params, nonce), 'X-Plivo-Signature-V3-Nonce': nonce });
    this.callbacks.push({ url, status: r.status, params });
    if (this.callbacks.length > 1000) this.callbacks.shift();
    return r;
  }

  close(): void { for (const c of this.calls.values()) { c.ws?.terminate(); c.line?.close(); } }
}
