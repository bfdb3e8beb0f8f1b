/**
 * Fake Twilio (reference 1.1): REST Calls create and update under /2010-04-01/Accounts/{sid}/Calls, signed status
 * and asynchronous AMD callbacks, and a Media Streams client that connects to the <Connect><Stream> URL of the
 * TwiML (X-Twilio-Signature over that wss URL with no parameters, computed by the `twilio` package itself) and
 * speaks connected/start/media/stop, echoing marks and honouring clear.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import twilio from 'twilio';
import WebSocket from 'ws';
import type { CallerAudio } from './caller_audio.js';
import { basicAuth, hex, postForm, readBody, sendJson, sleep } from './http.js';
import { PhoneLine, type LineStats } from './phone.js';
import type { FakeSettings } from './settings.js';
import { elements } from './xml.js';

interface TwilioCall {
  sid: string; form: URLSearchParams; answeredAt?: number; seq: number; ended: boolean;
  ws?: WebSocket; line?: PhoneLine; streamSid?: string; wsSeq: number;
}

export class FakeTwilio {
  readonly calls = new Map<string, TwilioCall>();
  readonly callbacks: Array<{ url: string; status: number; params: Record<string, string> }> = [];
  constructor(private readonly s: FakeSettings, private readonly audio: CallerAudio, private readonly stats: LineStats,
    private readonly sid = process.env.TWILIO_ACCOUNT_SID ?? '', private readonly token = process.env.TWILIO_AUTH_TOKEN ?? '') {}

  /** true if the request was ours */
  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const m = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls(?:\/([^/]+))?\.json$/.exec(path);
    if (!m || req.method !== 'POST') return false;
    const auth = basicAuth(req);
    if (!this.sid || m[1] !== this.sid || auth?.user !== this.sid || auth.pass !== this.token) {
      sendJson(res, 401, { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
      return true;
    }
    const form = new URLSearchParams(await readBody(req));
    if (!m[2]) this.#create(form, res);
    else this.#update(m[2], form, res);
    return true;
  }

  #create(form: URLSearchParams, res: ServerResponse): void {
    const missing = ['To', 'From'].filter((k) => !form.get(k));
    if (missing.length || (!form.get('Twiml') && !form.get('Url'))) {
      sendJson(res, 400, { code: 21201, message: `Missing ${missing.join(', ') || 'Twiml or Url'}`, more_info: 'https://www.twilio.com/docs/errors/21201', status: 400 });
      return;
    }
    const call: TwilioCall = { sid: `CA${hex(16)}`, form, seq: 0, ended: false, wsSeq: 0 };
    this.calls.set(call.sid, call);
    sendJson(res, 201, this.#resource(call, 'queued'));
    void this.#run(call);
  }

  async #run(call: TwilioCall): Promise<void> {
    await this.#status(call, 'initiated', 'initiated');
    await sleep(50);
    if (call.ended) return;
    await this.#status(call, 'ringing', 'ringing');
    await sleep(100);
    if (call.ended) return;
    call.answeredAt = Date.now();
    await this.#status(call, 'answered', 'in-progress');
    let twiml = call.form.get('Twiml') ?? '';
    if (!twiml) {
      const url = call.form.get('Url')!;
      const params = this.#common(call, 'in-progress');
      twiml = (await postForm(url, params, { 'X-Twilio-Signature': twilio.getExpectedTwilioSignature(this.token, url, params) })).body;
    }
    const stream = elements(twiml, 'Stream')[0];
    if (!stream?.attrs.url) { this.stats.protocolErrors++; await this.#end(call, 'failed'); return; }
    const custom = Object.fromEntries(elements(twiml, 'Parameter').map((p) => [p.attrs.name, p.attrs.value]));
    this.#amd(call);
    this.#connect(call, stream.attrs.url, custom);
  }

  #amd(call: TwilioCall): void {
    const url = call.form.get('AsyncAmdStatusCallback');
    if (!call.form.get('MachineDetection') || call.form.get('AsyncAmd') !== 'true' || !url) return;
    void sleep(500).then(() => {
      if (call.ended) return;
      const params = { AccountSid: this.sid, CallSid: call.sid, AnsweredBy: 'human', MachineDetectionDuration: '500' };
      return this.#post(url, params);
    });
  }

  #connect(call: TwilioCall, url: string, customParameters: Record<string, string>): void {
    // Twilio signs the wss URL it connects to, with no parameters (reference 1.1.7)
    const ws = new WebSocket(url, { headers: { 'X-Twilio-Signature': twilio.getExpectedTwilioSignature(this.token, url, {}) } });
    call.ws = ws;
    call.streamSid = `MZ${hex(16)}`;
    const send = (msg: Record<string, unknown>) => { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ ...msg, sequenceNumber: String(++call.wsSeq) })); };
    ws.on('error', () => { this.stats.protocolErrors++; });
    ws.on('open', () => {
      ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
      send({ event: 'start', streamSid: call.streamSid, start: { streamSid: call.streamSid, accountSid: this.sid, callSid: call.sid,
        tracks: ['inbound'], customParameters, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } } });
      call.line = new PhoneLine({
        sendCaller: (audio, i, ms) => send({ event: 'media', streamSid: call.streamSid,
          media: { track: 'inbound', chunk: String(i + 1), timestamp: String(ms), payload: Buffer.from(audio.next(160)).toString('base64') } }),
        markReached: (name) => send({ event: 'mark', streamSid: call.streamSid, mark: { name } }),
      }, this.audio, this.stats, 20, this.s.underrunWindowMs);
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) { this.stats.protocolErrors++; return; }
      let msg: { event?: string; streamSid?: string; media?: { payload?: string }; mark?: { name?: string } };
      try { msg = JSON.parse(String(data)); } catch { this.stats.protocolErrors++; return; }
      if (msg.streamSid !== call.streamSid) { this.stats.protocolErrors++; return; }
      if (msg.event === 'media' && typeof msg.media?.payload === 'string') {
        const bytes = Buffer.from(msg.media.payload, 'base64').length;
        if (bytes % 160) this.stats.protocolErrors++;
        call.line?.agentFrames(Math.ceil(bytes / 160));
      } else if (msg.event === 'mark' && typeof msg.mark?.name === 'string') call.line?.mark(msg.mark.name);
      else if (msg.event === 'clear') call.line?.clear();
      else this.stats.protocolErrors++;
    });
    ws.on('close', () => { call.line?.close(); if (!call.ended) void this.#end(call, 'completed'); });
  }

  #update(sid: string, form: URLSearchParams, res: ServerResponse): void {
    const call = this.calls.get(sid);
    if (!call) {
      sendJson(res, 404, { code: 20404, message: `The requested resource /Calls/${sid}.json was not found`, more_info: 'https://www.twilio.com/docs/errors/20404', status: 404 });
      return;
    }
    const status = form.get('Status');
    if (status === 'completed' || status === 'canceled' || form.get('Twiml') || form.get('Url')) {
      // a hang-up, or new TwiML (a transfer's <Dial>) replacing the stream: either way our stream stops
      void this.#end(call, call.answeredAt ? 'completed' : 'canceled');
      sendJson(res, 200, this.#resource(call, form.get('Twiml') || form.get('Url') ? 'in-progress' : 'completed'));
      return;
    }
    sendJson(res, 400, { code: 21220, message: 'Invalid call state', status: 400 });
  }

  async #end(call: TwilioCall, status: string): Promise<void> {
    if (call.ended) return;
    call.ended = true;
    const ws = call.ws;
    if (ws?.readyState === WebSocket.OPEN) {
      ws.send(JSON.stringify({ event: 'stop', sequenceNumber: String(++call.wsSeq), streamSid: call.streamSid, stop: { accountSid: this.sid, callSid: call.sid } }));
      ws.close(1000);
    }
    call.line?.close();
    await this.#status(call, 'completed', status);
  }

  #resource(call: TwilioCall, status: string) {
    return { sid: call.sid, account_sid: this.sid, to: call.form.get('To'), from: call.form.get('From'), status, direction: 'outbound-api',
      api_version: '2010-04-01', date_created: new Date().toUTCString(), answered_by: null, uri: `/2010-04-01/Accounts/${this.sid}/Calls/${call.sid}.json` };
  }

  #common(call: TwilioCall, status: string): Record<string, string> {
    return { AccountSid: this.sid, CallSid: call.sid, From: call.form.get('From') ?? '', To: call.form.get('To') ?? '', CallStatus: status,
      Direction: 'outbound-api', ApiVersion: '2010-04-01' };
  }

  /** a status callback, if the call asked for this event (completed is always sent) */
  async #status(call: TwilioCall, event: string, status: string): Promise<void> {
    const url = call.form.get('StatusCallback');
    const events = call.form.getAll('StatusCallbackEvent').flatMap((e) => e.split(/[\s,]+/));
    if (!url || (event !== 'completed' && !events.includes(event))) return;
    const params: Record<string, string> = { ...this.#common(call, status), Timestamp: new Date().toUTCString(),
      SequenceNumber: String(call.seq++), CallbackSource: 'call-progress-events' };
    if (event === 'completed') params.CallDuration = String(call.answeredAt ? Math.round((Date.now() - call.answeredAt) / 1000) : 0);
    await this.#post(url, params);
  }

  async #post(url: string, params: Record<string, string>): Promise<void> {
    const r = await postForm(url, params, { 'X-Twilio-Signature': twilio.getExpectedTwilioSignature(this.token, url, params) });
    this.callbacks.push({ url, status: r.status, params });
    if (this.callbacks.length > 1000) this.callbacks.shift();
  }

  close(): void { for (const c of this.calls.values()) { c.ws?.terminate(); c.line?.close(); } }
}
