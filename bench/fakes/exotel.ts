/**
 * Fake Exotel (reference 1.3): Calls/connect (form, Basic API key:token) into a flow whose Voicebot applet gets its
 * wss URL from the request's StreamUrl, or from the applet's configured URL (FAKE_EXOTEL_VOICEBOT_URL: a ws(s)
 * URL, or an http(s) endpoint answering {"url": "wss://..."}), then a stream client speaking the documented
 * snake_case connected/start/media/stop with 16-bit 8 kHz PCM, echoing marks, honouring clear, and checking that
 * what it is sent comes in multiples of 320 bytes. The bot closing the socket ends the call (StatusCallback).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import WebSocket from 'ws';
import type { CallerAudio } from './caller_audio.js';
import { basicAuth, hex, postForm, readBody, sendJson, sleep } from './http.js';
import { PhoneLine, type LineStats } from './phone.js';
import type { FakeSettings } from './settings.js';

interface ExotelCall { sid: string; form: URLSearchParams; answeredAt?: number; ended: boolean; ws?: WebSocket; line?: PhoneLine; streamSid: string; seq: number }

export class FakeExotel {
  readonly calls = new Map<string, ExotelCall>();
  readonly callbacks: Array<{ url: string; status: number; params: Record<string, string> }> = [];
  constructor(private readonly s: FakeSettings, private readonly audio: CallerAudio, private readonly stats: LineStats,
    private readonly sid = process.env.EXOTEL_ACCOUNT_SID ?? '', private readonly key = process.env.EXOTEL_API_KEY ?? '',
    private readonly token = process.env.EXOTEL_API_TOKEN ?? '', private readonly voicebotUrl = process.env.FAKE_EXOTEL_VOICEBOT_URL ?? '') {}

  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const m = /^\/v1\/Accounts\/([^/]+)\/Calls\/connect(?:\.json)?$/.exec(path);
    if (!m || req.method !== 'POST') return false;
    const auth = basicAuth(req);
    if (!this.sid || m[1] !== this.sid || auth?.user !== this.key || auth.pass !== this.token) {
      sendJson(res, 401, { RestException: { Status: 401, Message: 'Authentication is required to view this page.' } });
      return true;
    }
    const form = new URLSearchParams(await readBody(req));
    if (!form.get('From') || !form.get('CallerId') || (!form.get('Url') && !form.get('StreamUrl'))) {
      sendJson(res, 400, { RestException: { Status: 400, Message: 'From, CallerId and Url are required' } });
      return true;
    }
    const call: ExotelCall = { sid: hex(16), form, ended: false, streamSid: hex(16), seq: 0 };
    this.calls.set(call.sid, call);
    sendJson(res, 200, { Call: { Sid: call.sid, AccountSid: this.sid, To: form.get('From'), From: form.get('CallerId'), Status: 'in-progress',
      Direction: 'outbound-api', DateCreated: stamp(), Uri: `/v1/Accounts/${this.sid}/Calls/${call.sid}.json` } });
    void this.#run(call);
    return true;
  }

  async #run(call: ExotelCall): Promise<void> {
    await sleep(150);
    call.answeredAt = Date.now();
    await this.#status(call, 'answered');
    let url = call.form.get('StreamUrl') ?? this.voicebotUrl;
    if (/^https?:/.test(url)) {
      // the applet's dynamic form: our endpoint answers {"url": "wss://..."}
      const q = new URLSearchParams({ CallSid: call.sid, CallFrom: call.form.get('From') ?? '', CallTo: call.form.get('CallerId') ?? '', CustomField: call.form.get('CustomField') ?? '' });
      try {
        const res = await fetch(`${url}${url.includes('?') ? '&' : '?'}${q}`);
        url = res.ok ? String(((await res.json()) as { url?: string }).url ?? '') : '';
      } catch { url = ''; }
    }
    if (!/^wss?:/.test(url)) { this.stats.protocolErrors++; await this.#end(call, 'failed'); return; }
    this.#connect(call, url);
  }

  #connect(call: ExotelCall, raw: string): void {
    const u = new URL(raw);
    const headers: Record<string, string> = {};
    if (u.username) headers.Authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
    u.username = ''; u.password = '';
    const custom = Object.fromEntries([...u.searchParams].filter(([k]) => k !== 'sample-rate').slice(0, 3));
    const ws = new WebSocket(u.toString(), { headers });
    call.ws = ws;
    const send = (msg: Record<string, unknown>) => { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg)); };
    const chunkMs = this.s.exotelChunkMs;
    ws.on('error', () => { this.stats.protocolErrors++; });
    ws.on('open', () => {
      send({ event: 'connected' });
      send({ event: 'start', sequence_number: String(++call.seq), stream_sid: call.streamSid, start: { stream_sid: call.streamSid, call_sid: call.sid,
        account_sid: this.sid, from: call.form.get('From'), to: call.form.get('CallerId'), custom_parameters: custom,
        media_format: { encoding: 'audio/x-raw', sample_rate: '8000', bit_rate: '16' } } });
      call.line = new PhoneLine({
        sendCaller: (audio, i, ms) => send({ event: 'media', sequence_number: String(++call.seq), stream_sid: call.streamSid,
          media: { chunk: String(i + 1), timestamp: String(ms), payload: audio.nextPcm(chunkMs * 8).toString('base64') } }),
        markReached: (name) => send({ event: 'mark', sequence_number: String(++call.seq), stream_sid: call.streamSid, mark: { name } }),
      }, this.audio, this.stats, chunkMs, this.s.underrunWindowMs);
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) { this.stats.protocolErrors++; return; }
      let msg: { event?: string; stream_sid?: string; streamSid?: string; media?: { payload?: string }; mark?: { name?: string } };
      try { msg = JSON.parse(String(data)); } catch { this.stats.protocolErrors++; return; }
      if ((msg.stream_sid ?? msg.streamSid) !== call.streamSid) { this.stats.protocolErrors++; return; }
      if (msg.event === 'media' && typeof msg.media?.payload === 'string') {
        const bytes = Buffer.from(msg.media.payload, 'base64').length;
        if (bytes % 320) this.stats.protocolErrors++;
        call.line?.agentFrames(Math.ceil(bytes / 320));
      } else if (msg.event === 'mark' && typeof msg.mark?.name === 'string') call.line?.mark(msg.mark.name);
      else if (msg.event === 'clear') call.line?.clear();
      else this.stats.protocolErrors++;
    });
    ws.on('close', () => { call.line?.close(); void this.#end(call, 'completed'); });
  }

  async #end(call: ExotelCall, status: string): Promise<void> {
    if (call.ended) return;
    call.ended = true;
    if (call.ws?.readyState === WebSocket.OPEN) {
      call.ws.send(JSON.stringify({ event: 'stop', sequence_number: String(++call.seq), stream_sid: call.streamSid, stop: { call_sid: call.sid, account_sid: this.sid, reason: 'callended' } }));
      call.ws.close(1000);
    }
    call.line?.close();
    await this.#status(call, status);
  }

  async #status(call: ExotelCall, status: string): Promise<void> {
    const url = call.form.get('StatusCallback');
    if (!url) return;
    const terminal = status !== 'answered';
    const wanted = [...call.form.entries()].filter(([k]) => k.startsWith('StatusCallbackEvents')).map(([, v]) => v);
    if (!terminal && !wanted.includes('answered')) return;
    const params: Record<string, string> = { CallSid: call.sid, DateUpdated: stamp(), Status: terminal ? status : 'in-progress', RecordingUrl: '',
      EventType: terminal ? 'terminal' : 'answered', To: call.form.get('From') ?? '', From: call.form.get('CallerId') ?? '' };
    const r = await postForm(url, params);
    this.callbacks.push({ url, status: r.status, params });
    if (this.callbacks.length > 1000) this.callbacks.shift();
  }

  /** the caller hangs up: the stream stops and the call ends */
  hangup(sid: string): boolean { const c = this.calls.get(sid); if (!c || c.ended) return false; void this.#end(c, 'completed'); return true; }

  close(): void { for (const c of this.calls.values()) { c.ws?.terminate(); c.line?.close(); } }
}

/** Exotel's `YYYY-MM-DD HH:mm:ss` */
const stamp = () => new Date().toISOString().replace('T', ' ').slice(0, 19);
