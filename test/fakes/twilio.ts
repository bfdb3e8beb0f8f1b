/**
 * A fake Twilio, built from Twilio's documented messages (src/carriers/twilio/README.md):
 * - REST: POST /2010-04-01/Accounts/:sid/Calls.json (create) and /Calls/:CallSid.json (Status=completed|canceled,
 *   Twiml=<Dial>), HTTP Basic AccountSid:AuthToken, form bodies, Call JSON answers and {code, message, more_info,
 *   status} errors; scripted errors (rate limit with Retry-After, 5xx, 21211, ...) can be queued.
 * - status callbacks (initiated, ringing, in-progress, the end) and the async AMD verdict (AnsweredBy), posted
 *   form-encoded to the URLs the call was created with, signed with the vendor's twilio.getExpectedTwilioSignature.
 * - the media client: a WebSocket to the <Stream url> with a signed upgrade, connected/start (<Parameter>s as
 *   customParameters)/media (20 ms of mu-law every 20 ms, real time)/stop, playing our outbound audio at 8 bytes
 *   per ms and echoing each mark once the audio before it has played, or at once on clear.
 * - a call to one of our numbers (ringIn): the number's Voice URL gets a signed form POST (CallSid, From, To,
 *   CallStatus=ringing, Direction=inbound); its TwiML <Connect><Stream> is streamed as above, <Reject> ends the call
 *   busy; status callbacks go to the number's status callback URL.
 * - the caller's keys: `dtmf` messages (dtmf.track inbound_track, dtmf.digit) on the stream, on demand.
 * - TwiML beyond the stream (from a create's Twiml or an update's): <Say> is heard by the callee (kept in `heard`),
 *   <Hangup/> ends the call, <Dial><Conference> joins a named room with TwiML's documented attributes:
 *   startConferenceOnEnter (default true; false before the room has started: muted on hold, hearing waitUrl, by
 *   default Twilio's hold music, "" silence), endConferenceOnExit (default false; true: this member leaving ends
 *   the room and every other member's <Dial>), beep; the room starts when a member with startConferenceOnEnter
 *   joins, and everyone in it is then connected. `events` keeps the order of what was heard, held and connected.
 * `tunnel` maps the public URLs Twilio is given (PUBLIC_BASE_URL) to where the service listens, as ngrok would.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import WebSocket from 'ws';

const sidOf = (prefix: string) => prefix + randomBytes(16).toString('hex');
const SILENCE = new Uint8Array(160).fill(0xff);

/** How the callee of a number behaves. */
export interface CalleePlan {
  /** human/machine answer; the others end unanswered with that CallStatus; 'lost' never calls back at all */
  answer: 'human' | 'machine' | 'busy' | 'no-answer' | 'failed' | 'lost';
  ringMs?: number;
  /** mu-law 8 kHz the callee says once the stream starts (then silence) */
  audio?: Uint8Array;
  /** the callee listens first: it says `audio` once our audio has played and then paused this long, ms */
  speakWhenQuietMs?: number;
  /** machine: the greeting's length before the beep verdict (AnsweredBy=machine_end_beep), ms */
  greetingMs?: number;
}

export interface ScriptedError { status: number; code?: number; message?: string; retryAfterSeconds?: number }

export interface FakeCall {
  sid: string; to: string; from: string; form: URLSearchParams;
  streamUrl?: string; parameters: Record<string, string>;
  status: string;
  /** status callbacks sent (CallStatus), AMD verdicts sent, and what our service answered to each */
  callbacks: Array<{ hook: 'status' | 'amd'; value: string; httpStatus: number }>;
  ws?: WebSocket; streamSid?: string;
  /** our outbound audio that "played" (mu-law), every mark echoed, clears, and what broke the protocol (31951) */
  played: Uint8Array[]; playedBytes: number; marksEchoed: string[]; clears: number; protocolErrors: string[];
  dialed?: string;
  /** what <Say> said to this call's callee, in order */
  heard: string[];
  /** the conference room this call is in (<Dial><Conference>), and what it hears while the room waits to start */
  conference?: string; holdAudio?: string;
  /** the callee is saying (or has said) its audio */
  speaking: boolean;
  /** when the stream started (ms, Date.now) */
  startedAt?: number;
  /** a Promise resolved when the call is over at the fake */
  ended: Promise<void>;
}

interface LiveCall extends FakeCall {
  queue: Array<{ audio: Uint8Array } | { mark: string }>;
  timers: NodeJS.Timeout[]; tick?: NodeJS.Timeout;
  seq: number; chunk: number; audioAt: number; audio?: Uint8Array;
  /** when our audio last played (Date.now) */
  lastPlayedAt: number;
  end(): void;
}

/** mu-law samples of a corpus WAV (format 7, 8 kHz): the data chunk. */
export function corpusMulaw(path: string): Uint8Array {
  const b = readFileSync(path);
  for (let o = 12; o + 8 <= b.length;) {
    const id = b.toString('ascii', o, o + 4);
    const size = b.readUInt32LE(o + 4);
    if (id === 'data') return new Uint8Array(b.subarray(o + 8, Math.min(b.length, o + 8 + size)));
    o += 8 + size + (size & 1);
  }
  throw new Error(`no data chunk in ${path}`);
}

/** A conference room: its members in the order they joined, and whether it has started. */
export interface FakeConference { name: string; started: boolean; members: Array<{ sid: string; endOnExit: boolean }> }

export class FakeTwilio {
  readonly calls = new Map<string, LiveCall>();
  readonly conferences = new Map<string, FakeConference>();
  /** what happened to calls in conferences and <Say>, in order: `<sid> heard <text>`, `<sid> held <audio>`, `<sid> connected` */
  readonly events: string[] = [];
  readonly requests: Array<{ method: string; path: string; form: URLSearchParams; authorized: boolean }> = [];
  readonly #plans = new Map<string, CalleePlan>();
  readonly #errors: ScriptedError[] = [];
  readonly #http = createServer((req, res) => { this.#handle(req, res).catch(() => res.writeHead(500).end()); });
  baseUrl = '';
  tunnel: (publicUrl: string) => string = (u) => u;

  constructor(readonly accountSid: string, readonly authToken: string) {}

  async start(): Promise<this> {
    await new Promise<void>((r) => this.#http.listen(0, '127.0.0.1', r));
    this.baseUrl = `http://127.0.0.1:${(this.#http.address() as AddressInfo).port}`;
    return this;
  }

  plan(to: string, p: CalleePlan): void { this.#plans.set(to, p); }
  /** the next create requests are answered with these errors, in order */
  failNext(...e: ScriptedError[]): void { this.#errors.push(...e); }
  /** the call exists (and rings) at once, but Twilio's answer to the create takes this long, ms */
  createAnswerDelayMs = 0;
  callTo(to: string): FakeCall | undefined { return [...this.calls.values()].reverse().find((c) => c.to === to); }

  /** the callee (or the human a transfer reached) hangs up */
  hangUp(sid: string): void {
    const c = this.calls.get(sid);
    if (c && c.status === 'in-progress') this.#complete(c);
  }

  /**
   * A lead calls one of our numbers: Twilio asks the number's Voice URL what to do (a signed form POST), then runs
   * the TwiML it answers. Status callbacks (ringing .. completed) go to the number's status callback URL.
   */
  async ringIn(o: { from: string; to: string; voiceUrl: string; statusUrl?: string; audio?: Uint8Array }): Promise<FakeCall & { voiceAnswer: string }> {
    const form = new URLSearchParams({ To: o.to, From: o.from });
    if (o.statusUrl) { form.set('StatusCallback', o.statusUrl); for (const e of ['ringing', 'answered', 'completed']) form.append('StatusCallbackEvent', e); }
    let end!: () => void;
    const ended = new Promise<void>((r) => { end = r; });
    const c: LiveCall = { sid: sidOf('CA'), to: o.to, from: o.from, form, parameters: {}, status: 'ringing', callbacks: [], played: [], playedBytes: 0, heard: [],
      marksEchoed: [], clears: 0, protocolErrors: [], queue: [], timers: [], seq: 0, chunk: 0, audioAt: 0, speaking: true, lastPlayedAt: 0, ended, end,
      ...(o.audio ? { audio: o.audio } : {}) };
    this.calls.set(c.sid, c);
    const params = { AccountSid: this.accountSid, ApiVersion: '2010-04-01', CallSid: c.sid, CallStatus: 'ringing', Direction: 'inbound',
      From: o.from, To: o.to, Caller: o.from, Called: o.to };
    const signature = twilio.getExpectedTwilioSignature(this.authToken, o.voiceUrl, params);
    const r = await fetch(this.tunnel(o.voiceUrl), { method: 'POST', body: new URLSearchParams(params).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature } });
    const twiml = await r.text();
    const stream = /<Connect><Stream url="([^"]+)"[^>]*>(.*?)<\/Stream><\/Connect>/s.exec(twiml);
    if (r.status !== 200 || !stream) { this.#finish(c, /<Reject/.test(twiml) ? 'busy' : 'failed'); return { ...c, voiceAnswer: twiml }; }
    for (const p of stream[2].matchAll(/<Parameter name="([^"]*)" value="([^"]*)"\/>/g)) c.parameters[unescapeXml(p[1])] = unescapeXml(p[2]);
    c.streamUrl = unescapeXml(stream[1]);
    this.#progress(c, 'in-progress');
    await this.#connect(c);
    return Object.assign(c, { voiceAnswer: twiml });
  }

  sendDtmf(sid: string, digit: string): void {
    const c = this.calls.get(sid);
    if (c?.ws?.readyState === WebSocket.OPEN) c.ws.send(JSON.stringify({ event: 'dtmf', streamSid: c.streamSid, sequenceNumber: String(++c.seq), dtmf: { track: 'inbound_track', digit } }));
  }

  async close(): Promise<void> {
    for (const c of this.calls.values()) { for (const t of c.timers) clearTimeout(t); clearTimeout(c.tick); c.ws?.terminate(); c.end(); }
    this.#http.closeAllConnections();
    await new Promise<void>((r) => this.#http.close(() => r()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += chunk;
    const form = new URLSearchParams(body);
    const path = req.url ?? '';
    const want = 'Basic ' + Buffer.from(`${this.accountSid}:${this.authToken}`).toString('base64');
    const authorized = req.headers.authorization === want;
    this.requests.push({ method: req.method ?? '', path, form, authorized });
    const json = (status: number, o: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(o));
    };
    const error = (status: number, code: number, message: string, headers: Record<string, string> = {}): void =>
      json(status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, headers);
    if (!authorized) return error(401, 20003, 'Authenticate');
    // Fetch an Account (REST API: Accounts): GET /2010-04-01/Accounts/{Sid}.json, the account's own resource
    const account = /^\/2010-04-01\/Accounts\/([^/.]+)\.json$/.exec(path);
    if (req.method === 'GET' && account) {
      if (account[1] !== this.accountSid) return error(404, 20404, `The requested resource ${path} was not found`);
      return json(200, {
        sid: this.accountSid, owner_account_sid: this.accountSid, friendly_name: 'fake account', status: 'active', type: 'Full',
        date_created: 'Tue, 01 Sep 2026 10:00:00 +0000', date_updated: 'Tue, 01 Sep 2026 10:00:00 +0000',
        uri: `/2010-04-01/Accounts/${this.accountSid}.json`,
      });
    }
    const m = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls(?:\/([^/]+))?\.json$/.exec(path);
    if (req.method !== 'POST' || !m) return error(404, 20404, `The requested resource ${path} was not found`);
    if (m[1] !== this.accountSid) return error(403, 20003, 'Authenticate');
    if (!m[2]) {
      const scripted = this.#errors.shift();
      if (scripted) {
        return error(scripted.status, scripted.code ?? scripted.status, scripted.message ?? 'scripted error',
          scripted.retryAfterSeconds !== undefined ? { 'retry-after': String(scripted.retryAfterSeconds) } : {});
      }
      if (!form.get('To') || !form.get('From')) return error(400, 21201, 'No \'To\' number is specified');
      if (!form.get('Twiml') && !form.get('Url')) return error(400, 21205, 'Url parameter is required');
      const c = this.#create(form);
      if (this.createAnswerDelayMs) await new Promise((r) => setTimeout(r, this.createAnswerDelayMs));
      return json(201, { sid: c.sid, account_sid: this.accountSid, to: c.to, from: c.from, status: 'queued', direction: 'outbound-api',
        api_version: '2010-04-01', answered_by: null, uri: `/2010-04-01/Accounts/${this.accountSid}/Calls/${c.sid}.json` });
    }
    const c = this.calls.get(m[2]);
    if (!c || ['completed', 'busy', 'failed', 'no-answer', 'canceled'].includes(c.status)) return error(404, 20404, `The requested resource ${path} was not found`);
    const status = form.get('Status');
    const twiml = form.get('Twiml');
    if (status === 'completed' || (status === 'canceled' && c.status !== 'in-progress')) {
      if (status === 'canceled') this.#finish(c, 'canceled'); else this.#complete(c);
    } else if (status === 'canceled') {
      return error(400, 21220, 'Call is not in a valid state to cancel');
    } else if (twiml) {
      const dial = /<Dial(?: callerId="[^"]*")?>(?:<Sip>)?([^<]+)(?:<\/Sip>)?<\/Dial>/.exec(twiml);
      if (!dial && !/<Response>.*<\/Response>/s.test(twiml)) return error(400, 12100, 'Document parse failure');
      // the new TwiML replaces <Connect><Stream>: the stream stops, the call runs the new document
      c.timers.push(setTimeout(() => this.#stopStream(c), 20));
      if (dial) c.dialed = unescapeXml(dial[1]); // bridged to the dialed party
      // a call in a room leaves it for its new document
      else c.timers.push(setTimeout(() => { this.#leave(c); c.conference = undefined; this.#runTwiml(c, twiml); }, 30));
    } else return error(400, 21218, 'Invalid Status or Twiml');
    return json(200, { sid: c.sid, status: c.status, to: c.to, from: c.from });
  }

  #create(form: URLSearchParams): LiveCall {
    const twiml = form.get('Twiml') ?? '';
    const stream = /<Connect><Stream url="([^"]+)"[^>]*>(.*?)<\/Stream><\/Connect>/s.exec(twiml);
    const parameters: Record<string, string> = {};
    for (const p of (stream?.[2] ?? '').matchAll(/<Parameter name="([^"]*)" value="([^"]*)"\/>/g)) parameters[unescapeXml(p[1])] = unescapeXml(p[2]);
    let end!: () => void;
    const ended = new Promise<void>((r) => { end = r; });
    const c: LiveCall = { sid: sidOf('CA'), to: form.get('To')!, from: form.get('From')!, form, parameters, status: 'queued', callbacks: [], heard: [],
      played: [], playedBytes: 0, marksEchoed: [], clears: 0, protocolErrors: [], queue: [], timers: [], seq: 0, chunk: 0, audioAt: 0, speaking: false, lastPlayedAt: 0, ended, end,
      ...(stream ? { streamUrl: unescapeXml(stream[1]) } : {}) };
    this.calls.set(c.sid, c);
    const plan = this.#plans.get(c.to) ?? { answer: 'human' };
    if (plan.answer === 'lost') return c;
    const later = (ms: number, f: () => void) => c.timers.push(setTimeout(f, ms));
    later(10, () => this.#progress(c, 'initiated'));
    later(30, () => this.#progress(c, 'ringing'));
    later(30 + (plan.ringMs ?? 200), () => {
      if (c.status !== 'ringing') return;
      if (plan.answer !== 'human' && plan.answer !== 'machine') { this.#finish(c, plan.answer); return; }
      this.#progress(c, 'in-progress');
      c.audio = plan.audio;
      c.speaking = plan.speakWhenQuietMs === undefined;
      const quietMs = plan.speakWhenQuietMs ?? 0;
      c.timers.push(setInterval(() => {
        if (!c.speaking && c.playedBytes > 0 && Date.now() - c.lastPlayedAt >= quietMs) c.speaking = true;
      }, 20));
      if (c.streamUrl) void this.#connect(c); else this.#runTwiml(c, c.form.get('Twiml') ?? '');
      const amdAfter = plan.answer === 'machine' ? plan.greetingMs ?? 1500 : 900;
      later(amdAfter, () => { if (c.status === 'in-progress') void this.#amd(c, plan.answer === 'machine' ? 'machine_end_beep' : 'human', amdAfter); });
    });
    return c;
  }

  #progress(c: LiveCall, status: string): void {
    if (['completed', 'busy', 'failed', 'no-answer', 'canceled'].includes(c.status)) return;
    c.status = status;
    const event = status === 'in-progress' ? 'answered' : status;
    if (c.form.getAll('StatusCallbackEvent').includes(event)) void this.#statusCallback(c);
  }

  /** the end: Twilio always reports the final status to StatusCallback */
  #finish(c: LiveCall, status: string): void {
    if (['completed', 'busy', 'failed', 'no-answer', 'canceled'].includes(c.status)) return;
    for (const t of c.timers) clearTimeout(t);
    clearTimeout(c.tick);
    c.status = status;
    this.#stopStream(c);
    this.#leave(c);
    void this.#statusCallback(c).finally(() => c.end());
  }

  #complete(c: LiveCall): void { this.#finish(c, 'completed'); }

  /**
   * Runs a document's verbs in order (no stream in it): each <Say> is heard, <Hangup/> ends the call, a
   * <Dial><Conference> joins the room (the rest of the document waits for the <Dial> to end, which here ends the call).
   */
  #runTwiml(c: LiveCall, twiml: string): void {
    for (const verb of twiml.matchAll(/<Say\b[^>]*>([^<]*)<\/Say>|<Hangup\/>|<Dial\b[^>]*><Conference\b([^>]*)>([^<]+)<\/Conference><\/Dial>/g)) {
      if (c.status !== 'in-progress') return;
      if (verb[1] !== undefined) { const text = unescapeXml(verb[1]); c.heard.push(text); this.events.push(`${c.sid} heard ${text}`); }
      else if (verb[0] === '<Hangup/>') { this.#complete(c); return; }
      else { this.#join(c, unescapeXml(verb[3]), verb[2]); return; }
    }
    if (!c.conference) this.#complete(c); // the document ran out
  }

  #join(c: LiveCall, name: string, attrText: string): void {
    const attr = (n: string) => { const m = new RegExp(`\\b${n}="([^"]*)"`).exec(attrText); return m ? unescapeXml(m[1]) : undefined; };
    for (const n of ['startConferenceOnEnter', 'endConferenceOnExit']) {
      const v = attr(n);
      if (v !== undefined && v !== 'true' && v !== 'false') { c.protocolErrors.push(`${n === 'endConferenceOnExit' ? 13231 : 13232} invalid ${n}`); return this.#complete(c); }
    }
    const beep = attr('beep');
    if (beep !== undefined && !['true', 'false', 'onEnter', 'onExit'].includes(beep)) c.protocolErrors.push('13230 invalid beep');
    const room = this.conferences.get(name) ?? { name, started: false, members: [] };
    this.conferences.set(name, room);
    room.members.push({ sid: c.sid, endOnExit: attr('endConferenceOnExit') === 'true' });
    c.conference = name;
    if (attr('startConferenceOnEnter') !== 'false') room.started = true;
    if (!room.started) {
      const wait = attr('waitUrl');
      c.holdAudio = wait === undefined ? 'twilio default hold music' : wait === '' ? 'silence' : wait;
      this.events.push(`${c.sid} held ${c.holdAudio}`);
      return;
    }
    for (const m of room.members) this.events.push(`${m.sid} connected ${name}`);
  }

  /** A member left its room: one with endConferenceOnExit ends the room, and every other member's call with it. */
  #leave(c: LiveCall): void {
    const room = c.conference ? this.conferences.get(c.conference) : undefined;
    if (!room) return;
    const me = room.members.find((m) => m.sid === c.sid);
    room.members = room.members.filter((m) => m.sid !== c.sid);
    if (!me?.endOnExit) return;
    this.conferences.delete(room.name);
    for (const m of room.members) { const other = this.calls.get(m.sid); if (other) this.#complete(other); }
  }

  async #statusCallback(c: LiveCall): Promise<void> {
    const url = c.form.get('StatusCallback');
    if (!url) return;
    const params: Record<string, string> = { AccountSid: this.accountSid, ApiVersion: '2010-04-01', CallSid: c.sid, CallStatus: c.status,
      Direction: 'outbound-api', From: c.from, To: c.to, CallbackSource: 'call-progress-events', SequenceNumber: String(c.callbacks.length),
      Timestamp: new Date().toUTCString() };
    if (c.status === 'completed') params.CallDuration = String(Math.round((Date.now() - (c.startedAt ?? Date.now())) / 1000));
    if (c.status === 'busy') params.SipResponseCode = '486';
    c.callbacks.push({ hook: 'status', value: c.status, httpStatus: await this.#post(url, params) });
  }

  async #amd(c: LiveCall, answeredBy: string, durationMs: number): Promise<void> {
    const url = c.form.get('AsyncAmdStatusCallback');
    if (c.form.get('AsyncAmd') !== 'true' || !url) return;
    const params = { AccountSid: this.accountSid, CallSid: c.sid, AnsweredBy: answeredBy, MachineDetectionDuration: String(durationMs) };
    c.callbacks.push({ hook: 'amd', value: answeredBy, httpStatus: await this.#post(url, params) });
  }

  /** POSTs a signed form to one of the service's public URLs; the service's HTTP status */
  async #post(publicUrl: string, params: Record<string, string>): Promise<number> {
    const signature = twilio.getExpectedTwilioSignature(this.authToken, publicUrl, params);
    try {
      const r = await fetch(this.tunnel(publicUrl), { method: 'POST', body: new URLSearchParams(params).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature } });
      await r.arrayBuffer();
      return r.status;
    } catch { return 0; }
  }

  async #connect(c: LiveCall): Promise<void> {
    if (!c.streamUrl) return;
    const ws = new WebSocket(this.tunnel(c.streamUrl), { headers: { 'x-twilio-signature': twilio.getExpectedTwilioSignature(this.authToken, c.streamUrl, {}) } });
    c.ws = ws;
    ws.on('error', () => {});
    ws.on('unexpected-response', () => { c.ws = undefined; });
    await new Promise<void>((r) => { ws.once('open', () => r()); ws.once('close', () => r()); });
    if (ws.readyState !== WebSocket.OPEN) return;
    c.streamSid = sidOf('MZ');
    c.startedAt = Date.now();
    ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
    ws.send(JSON.stringify({ event: 'start', sequenceNumber: String(++c.seq), streamSid: c.streamSid, start: {
      accountSid: this.accountSid, streamSid: c.streamSid, callSid: c.sid, tracks: ['inbound'], customParameters: c.parameters,
      mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } } }));
    ws.on('message', (data) => this.#outbound(c, String(data)));
    // every 20 ms: one inbound frame (real time, on the start's clock) and 20 ms of our queued audio played
    const tick = () => {
      if (ws.readyState !== WebSocket.OPEN) return;
      const due = Math.floor((Date.now() - c.startedAt!) / 20);
      while (c.chunk < due) {
        const frame = c.audio && c.speaking && c.audioAt < c.audio.length ? c.audio.subarray(c.audioAt, (c.audioAt += 160)) : SILENCE;
        const payload = Buffer.from(frame.length === 160 ? frame : SILENCE).toString('base64');
        c.chunk++;
        ws.send(JSON.stringify({ event: 'media', sequenceNumber: String(++c.seq), streamSid: c.streamSid,
          media: { track: 'inbound', chunk: String(c.chunk), timestamp: String(c.chunk * 20 - 20), payload } }));
        this.#play(c, 160);
      }
      c.tick = setTimeout(tick, 20 - ((Date.now() - c.startedAt!) % 20));
    };
    tick();
  }

  /** what our service sends: media (queued to play), mark (echoed once played), clear (drops the queue, echoes marks) */
  #outbound(c: LiveCall, text: string): void {
    let m: { event?: string; streamSid?: string; media?: { payload?: string }; mark?: { name?: string } };
    try { m = JSON.parse(text); } catch { c.protocolErrors.push('31951 not JSON'); return; }
    if (m.streamSid !== c.streamSid) { c.protocolErrors.push(`31951 wrong streamSid ${m.streamSid}`); return; }
    if (m.event === 'media' && typeof m.media?.payload === 'string') c.queue.push({ audio: Buffer.from(m.media.payload, 'base64') });
    else if (m.event === 'mark' && typeof m.mark?.name === 'string') { c.queue.push({ mark: m.mark.name }); this.#play(c, 0); }
    else if (m.event === 'clear') {
      c.clears++;
      for (const q of c.queue.splice(0)) if ('mark' in q) this.#echo(c, q.mark);
    } else c.protocolErrors.push(`31951 invalid message ${text.slice(0, 80)}`);
  }

  /** plays `bytes` of queued audio, then echoes the marks it reached */
  #play(c: LiveCall, bytes: number): void {
    while (c.queue.length) {
      const q = c.queue[0];
      if ('mark' in q) { c.queue.shift(); this.#echo(c, q.mark); continue; }
      if (bytes === 0) break;
      const n = Math.min(bytes, q.audio.length);
      c.played.push(q.audio.subarray(0, n));
      c.playedBytes += n;
      c.lastPlayedAt = Date.now();
      bytes -= n;
      if (n === q.audio.length) c.queue.shift(); else c.queue[0] = { audio: q.audio.subarray(n) };
    }
  }

  #echo(c: LiveCall, name: string): void {
    c.marksEchoed.push(name);
    if (c.ws?.readyState === WebSocket.OPEN) c.ws.send(JSON.stringify({ event: 'mark', sequenceNumber: String(++c.seq), streamSid: c.streamSid, mark: { name } }));
  }

  #stopStream(c: LiveCall): void {
    const ws = c.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify({ event: 'stop', sequenceNumber: String(++c.seq), streamSid: c.streamSid, stop: { accountSid: this.accountSid, callSid: c.sid } }));
    ws.close(1000);
  }
}

function unescapeXml(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos);/g, (_, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" })[e]!);
}
