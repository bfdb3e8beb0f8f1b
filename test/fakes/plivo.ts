/**
 * A local Plivo, built from Plivo's documented messages (src/carriers/plivo/README.md):
 * - REST: POST /v1/Account/:id/Call/ (JSON, Basic auth) -> 201 {"message":"call fired","request_uuid","api_id"};
 *   DELETE /v1/Account/:id/Call/:uuid/ -> 204 (404 unknown); DELETE /v1/Account/:id/Request/:uuid/ (cancel a
 *   ringing call) -> 204; POST /v1/Account/:id/Call/:uuid/ with legs=aleg, aleg_url -> 202 "call transferred".
 * - Callbacks (form POSTs signed X-Plivo-Signature-V3 + nonce, the algorithm of the docs, each signature checked
 *   with the plivo package's validateV3Signature before it is sent): ring_url, answer_url (its XML is parsed for
 *   <Stream>), hangup_url with CallStatus/HangupCause/Duration/BillDuration, machine_detection_url (Machine=true).
 * - A media client to the <Stream> URL: start (numeric sequenceNumber, extra_headers from extraHeaders), media
 *   every 20 ms in real time (mu-law 8 kHz, 160 bytes), then silence; plays what playAudio sends at 8 bytes/ms,
 *   answers each checkpoint with playedStream once the audio before it has played, clearAudio with clearedAudio
 *   (cleared checkpoints are not answered); the caller's keys as `dtmf` on demand, and our `sendDTMF` recorded.
 * - XML beyond the stream (an answer without <Stream>, or a transfer's aleg_url): <Speak> is heard by the callee
 *   (kept in `heard`), <Hangup/> ends the call, <Conference> joins a named room with the documented attributes:
 *   startConferenceOnEnter (default true; false before the room has started: muted, hearing background music, or
 *   waitSound when given), endConferenceOnExit (default false; true: this member leaving ends the room and every
 *   other member's call). The room starts when a member with startConferenceOnEnter joins. `events` keeps the order
 *   of what was heard, held and connected.
 * - A call to one of our numbers (ringIn): the application's answer_url gets the signed POST (CallUUID, From, To
 *   without "+", Direction=inbound, CallStatus=ringing); its <Stream> is streamed as above, and hangup_url is told
 *   the end.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import plivo from 'plivo';
import WebSocket from 'ws';

/** slow-answer: rings (and never answers) while the answer to Make Call takes a second */
export type PlivoBehaviour = 'answer' | 'busy' | 'no-answer' | 'silent' | 'slow-answer' | 'invalid' | 'ratelimit-once' | 'ratelimit' | 'server-error' | 'machine';

export interface FakePlivoCall {
  requestUuid: string;
  callUuid: string;
  body: Record<string, unknown>;
  answerXml?: string;
  transferXml?: string;
  ws?: WebSocket;
  /** mu-law bytes playAudio delivered, and each playAudio's (contentType, sampleRate) */
  played: number;
  formats: Set<string>;
  checkpointsSent: string[];
  playedEchoed: string[];
  clears: number;
  /** what our sendDTMF messages asked Plivo to press */
  dtmfSent: string[];
  streamId?: string;
  hungUpBy?: 'api' | 'caller' | 'canceled';
  callbacks: Array<{ hook: string; status: number; body: string }>;
  streamClosed: Promise<void>;
  /** what <Speak> said to this callee, in order; the room it is in and what it hears while the room waits */
  heard: string[];
  conference?: string;
  holdAudio?: string;
  ended?: boolean;
}

interface Options {
  authId: string;
  authToken: string;
  /** mu-law 8 kHz audio the callee says once the stream starts (then silence) */
  audio: Uint8Array;
  /** mu-law 8 kHz audio the callee says once the agent has spoken and then been quiet for 1.5 s (a reply) */
  reply?: Uint8Array;
  /** mu-law 8 kHz the callee says over the agent once 1 s of the agent's answer to its reply has played (a barge-in) */
  interrupt?: Uint8Array;
  behaviour?: (to: string) => PlivoBehaviour;
  /** how long a number rings before its callee acts, ms (default 30) */
  ringMs?: (to: string) => number | undefined;
}

/** V3 as documented: base64 HMAC-SHA256(token, url-with-sorted-query [? or .] sorted key+value pairs + "." + nonce). */
function signV3(token: string, url: string, params: Record<string, string>, nonce: string): string {
  const u = new URL(url);
  const q = [...u.searchParams.entries()].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&');
  const keys = Object.keys(params).sort();
  let s = url.split('?')[0];
  if (q || keys.length) s += `?${q}`;
  if (q && keys.length) s += '.';
  for (const k of keys) s += k + params[k];
  return createHmac('sha256', token).update(`${s}.${nonce}`).digest('base64');
}

export class FakePlivo {
  readonly calls: FakePlivoCall[] = [];
  readonly conferences = new Map<string, { started: boolean; members: Array<{ call: FakePlivoCall; endOnExit: boolean }> }>();
  /** `<CallUUID> heard <text>`, `<CallUUID> held <audio>`, `<CallUUID> connected <room>`, in order */
  readonly events: string[] = [];
  readonly restLog: Array<{ method: string; path: string; status: number }> = [];
  #server!: Server;
  #rateLimited = new Set<string>();
  #timers = new Set<NodeJS.Timeout>();
  baseUrl = '';

  constructor(private readonly o: Options) {}

  async start(): Promise<this> {
    this.#server = createServer((req, res) => { void this.#rest(req, res); });
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', r));
    this.baseUrl = `http://127.0.0.1:${(this.#server.address() as { port: number }).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    for (const c of this.calls) c.ws?.terminate();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }

  /** POSTs a signed callback; `forge` signs with another token. Returns status and body. */
  async post(url: string, params: Record<string, string>, forge = false): Promise<{ status: number; body: string }> {
    const nonce = randomUUID().replace(/-/g, '');
    const token = forge ? 'not-the-auth-token' : this.o.authToken;
    const sig = signV3(token, url, params, nonce);
    if (!forge && !plivo.validateV3Signature('POST', url, nonce, this.o.authToken, sig, params)) throw new Error('fake plivo: signature the SDK rejects');
    const r = await fetch(url, { method: 'POST', body: new URLSearchParams(params),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-plivo-signature-v3': sig, 'x-plivo-signature-v3-nonce': nonce } });
    return { status: r.status, body: await r.text() };
  }

  /**
   * A lead calls one of our numbers: Plivo fetches the application's answer_url (signed) and runs its XML; the
   * application's hangup_url hears the end.
   */
  async ringIn(o: { from: string; to: string; answerUrl: string; hangupUrl: string }): Promise<FakePlivoCall> {
    let closed!: () => void;
    const call: FakePlivoCall = { requestUuid: randomUUID(), callUuid: randomUUID(), played: 0, formats: new Set(), checkpointsSent: [], playedEchoed: [],
      clears: 0, dtmfSent: [], callbacks: [], heard: [], streamClosed: new Promise((r) => { closed = r; }),
      body: { from: o.from.replace(/^\+/, ''), to: o.to.replace(/^\+/, ''), answer_url: o.answerUrl, hangup_url: o.hangupUrl, direction: 'inbound' } };
    (call as { close?: () => void }).close = closed;
    this.calls.push(call);
    call.answerXml = await this.#callback(call, 'answer_url', { CallStatus: 'ringing' });
    if (/<Stream\b/.test(call.answerXml)) this.#stream(call);
    else await this.#callback(call, 'hangup_url', { CallStatus: 'busy', HangupCause: 'USER_BUSY', Duration: '0', BillDuration: '0' });
    return call;
  }

  /** The caller presses a key: a `dtmf` message on the stream. */
  sendDtmf(call: FakePlivoCall, digit: string): void {
    if (call.ws?.readyState === WebSocket.OPEN) call.ws.send(JSON.stringify({ event: 'dtmf', sequenceNumber: 1000, streamId: call.streamId,
      dtmf: { track: 'inbound', digit, timestamp: String(Date.now()) } }));
  }

  /** The callee hangs up: the stream ends and hangup_url reports a normal clearing. */
  async callerHangup(call: FakePlivoCall): Promise<void> {
    call.hungUpBy ??= 'caller';
    await this.#end(call);
  }

  /** The call is over: its stream closes, it leaves its room (ending it if it was the room's end), hangup_url is told. */
  async #end(call: FakePlivoCall): Promise<void> {
    if (call.ended) return;
    call.ended = true;
    call.ws?.close(1000);
    (call as { close?: () => void }).close?.();
    const others = this.#leave(call);
    await this.#callback(call, 'hangup_url', { CallStatus: 'completed', HangupCause: 'NORMAL_CLEARING', Duration: '7', BillDuration: '60' });
    for (const o of others) await this.#end(o);
  }

  /** Leaves its room; the members to end when it was a member with endConferenceOnExit. */
  #leave(call: FakePlivoCall): FakePlivoCall[] {
    const room = call.conference ? this.conferences.get(call.conference) : undefined;
    if (!room) return [];
    const name = call.conference!;
    const me = room.members.find((m) => m.call === call);
    room.members = room.members.filter((m) => m.call !== call);
    call.conference = undefined;
    if (!me?.endOnExit) return [];
    this.conferences.delete(name);
    return room.members.map((m) => m.call);
  }

  /** Runs XML with no <Stream>: <Speak> is heard, <Hangup/> ends the call, <Conference> joins the room. */
  async #runXml(call: FakePlivoCall, xml: string): Promise<void> {
    for (const verb of xml.matchAll(/<Speak\b[^>]*>([^<]*)<\/Speak>|<Hangup\b[^>]*\/>|<Conference\b([^>]*)>([^<]+)<\/Conference>/g)) {
      if (call.ended) return;
      if (verb[1] !== undefined) { const text = unescapeXml(verb[1]); call.heard.push(text); this.events.push(`${call.callUuid} heard ${text}`); }
      else if (verb[0].startsWith('<Hangup')) return this.#end(call);
      else return this.#join(call, unescapeXml(verb[3]), verb[2]);
    }
    await this.#end(call); // the document ran out
  }

  #join(call: FakePlivoCall, name: string, attrText: string): void {
    const attr = (n: string) => { const m = new RegExp(`\\b${n}="([^"]*)"`).exec(attrText); return m ? unescapeXml(m[1]) : undefined; };
    const room = this.conferences.get(name) ?? { started: false, members: [] };
    this.conferences.set(name, room);
    room.members.push({ call, endOnExit: attr('endConferenceOnExit') === 'true' });
    call.conference = name;
    if (attr('startConferenceOnEnter') !== 'false') room.started = true;
    if (!room.started) {
      call.holdAudio = attr('waitSound') ?? 'background music';
      this.events.push(`${call.callUuid} held ${call.holdAudio}`);
      return;
    }
    for (const m of room.members) this.events.push(`${m.call.callUuid} connected ${name}`);
  }

  #later(ms: number, f: () => unknown): void {
    const t = setTimeout(() => { this.#timers.delete(t); void Promise.resolve(f()).catch(() => {}); }, ms);
    this.#timers.add(t);
  }

  async #callback(call: FakePlivoCall, key: string, extra: Record<string, string>): Promise<string> {
    const url = call.body[key];
    if (typeof url !== 'string') return '';
    const params = { CallUUID: call.callUuid, RequestUUID: call.requestUuid, ALegUUID: call.callUuid, ALegRequestUUID: call.requestUuid,
      From: String(call.body.from), To: String(call.body.to), Direction: String(call.body.direction ?? 'outbound'), ...extra };
    const r = await this.post(url, params);
    call.callbacks.push({ hook: key, status: r.status, body: r.body });
    return r.body;
  }

  async #rest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const c of req) raw += c;
    const path = req.url ?? '';
    const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      this.restLog.push({ method: req.method ?? '', path, status });
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body === undefined ? undefined : JSON.stringify(body));
    };
    const want = `Basic ${Buffer.from(`${this.o.authId}:${this.o.authToken}`).toString('base64')}`;
    if (req.headers.authorization !== want) return send(401, { api_id: randomUUID(), error: 'authentication failed' });
    const prefix = `/v1/Account/${this.o.authId}/`;
    if (!path.startsWith(prefix)) return send(404, { api_id: randomUUID(), error: 'not found' });
    const rest = path.slice(prefix.length);
    const body = raw ? JSON.parse(raw) as Record<string, unknown> : {};
    if (req.method === 'POST' && rest === 'Call/') return this.#makeCall(body, send);
    // Account details (Plivo API: Account): GET /v1/Account/{auth_id}/
    if (req.method === 'GET' && rest === '') {
      return send(200, { api_id: randomUUID(), account_type: 'standard', auth_id: this.o.authId, name: 'fake account', cash_credits: '10.00000',
        billing_mode: 'prepaid', resource_uri: `/v1/Account/${this.o.authId}/` });
    }
    const m = /^(Call|Request)\/([^/]+)\/$/.exec(rest);
    const call = m && this.calls.find((c) => (m[1] === 'Call' ? c.callUuid : c.requestUuid) === m[2]);
    if (!m || !call) return send(404, { api_id: randomUUID(), error: 'call not found' });
    if (req.method === 'DELETE') {
      send(204);
      const canceled = m[1] === 'Request' || !call.ws;
      call.hungUpBy ??= canceled ? 'canceled' : 'api';
      call.ws?.close(1000);
      this.#later(20, () => this.#callback(call, 'hangup_url', canceled ? { CallStatus: 'cancel', HangupCause: 'ORIGINATOR_CANCEL' }
        : { CallStatus: 'completed', HangupCause: 'NORMAL_CLEARING', Duration: '9', BillDuration: '60' }));
      return;
    }
    if (req.method === 'POST' && body.legs === 'aleg' && typeof body.aleg_url === 'string') {
      send(202, { api_id: randomUUID(), message: 'call transferred' });
      const r = await this.post(body.aleg_url, { CallUUID: call.callUuid, From: String(call.body.from), To: String(call.body.to), Direction: 'outbound', CallStatus: 'in-progress' });
      call.transferXml = r.body;
      call.ws?.close(1000); // the new XML replaces the stream (and any room the call was in)
      this.#leave(call);
      if (!/<Dial\b/.test(r.body)) await this.#runXml(call, r.body);
      return;
    }
    send(400, { api_id: randomUUID(), error: 'unsupported request' });
  }

  #makeCall(body: Record<string, unknown>, send: (s: number, b?: unknown, h?: Record<string, string>) => void): void {
    for (const k of ['from', 'to', 'answer_url']) if (typeof body[k] !== 'string') return send(400, { api_id: randomUUID(), error: `${k} is required` });
    const to = String(body.to);
    const behaviour = this.o.behaviour?.(to) ?? 'answer';
    if (behaviour === 'invalid') return send(400, { api_id: randomUUID(), error: 'invalid destination number' });
    if (behaviour === 'server-error') return send(500, { api_id: randomUUID(), error: 'internal server error' });
    if (behaviour === 'ratelimit') return send(429, { api_id: randomUUID(), error: 'too many requests' }, { 'retry-after': '0' });
    if (behaviour === 'ratelimit-once' && !this.#rateLimited.has(to)) {
      this.#rateLimited.add(to);
      return send(429, { api_id: randomUUID(), error: 'too many requests' }, { 'retry-after': '1' });
    }
    let closed!: () => void;
    const call: FakePlivoCall = { requestUuid: randomUUID(), callUuid: randomUUID(), body, played: 0, formats: new Set(), checkpointsSent: [], playedEchoed: [],
      clears: 0, dtmfSent: [], callbacks: [], heard: [], streamClosed: new Promise((r) => { closed = r; }) };
    (call as { close?: () => void }).close = closed;
    this.calls.push(call);
    const fired = () => send(201, { message: 'call fired', request_uuid: call.requestUuid, api_id: randomUUID() });
    // slow-answer: the call is requested (and can be canceled) a second before Make Call answers and it rings
    if (behaviour === 'slow-answer') this.#later(1000, () => { fired(); this.#ring(call, behaviour); });
    else { fired(); this.#ring(call, behaviour); }
  }

  #ring(call: FakePlivoCall, behaviour: PlivoBehaviour): void {
    this.#later(this.o.ringMs?.(String(call.body.to)) ?? 30, async () => {
      await this.#callback(call, 'ring_url', { CallStatus: 'ringing' });
      if (behaviour === 'silent' || behaviour === 'slow-answer') return; // rings until someone gives up
      if (behaviour === 'busy') return this.#callback(call, 'hangup_url', { CallStatus: 'busy', HangupCause: 'USER_BUSY', Duration: '0', BillDuration: '0' });
      if (behaviour === 'no-answer') return this.#callback(call, 'hangup_url', { CallStatus: 'no-answer', HangupCause: 'NO_ANSWER', Duration: '0', BillDuration: '0' });
      call.answerXml = await this.#callback(call, 'answer_url', { CallStatus: 'in-progress' });
      if (!/<Stream\b/.test(call.answerXml)) return this.#runXml(call, call.answerXml);
      this.#stream(call);
      if (behaviour === 'machine') this.#later(300, () => this.#callback(call, 'machine_detection_url', { Machine: 'true', MachineDetectionDuration: '2100' }));
    });
  }

  /** Opens the media stream the answer XML asks for, as Plivo would. */
  #stream(call: FakePlivoCall): void {
    const m = /<Stream\b([^>]*)>\s*([^<\s]+)\s*<\/Stream>/.exec(call.answerXml ?? '');
    if (!m) { (call as { close?: () => void }).close?.(); return; }
    const attr = (n: string) => new RegExp(`${n}="([^"]*)"`).exec(m[1])?.[1];
    if (attr('bidirectional') !== 'true' || attr('contentType') !== 'audio/x-mulaw;rate=8000') throw new Error('fake plivo: not a bidirectional mu-law stream');
    const ws = new WebSocket(m[2].replace(/&amp;/g, '&'));
    call.ws = ws;
    const streamId = randomUUID();
    call.streamId = streamId;
    let seq = 0;
    const queue: Array<number | string> = []; // bytes to play, or a checkpoint name
    let started = 0;
    let ticker: NodeJS.Timeout | undefined;
    ws.on('error', () => {});
    ws.on('close', () => { clearTimeout(ticker); (call as { close?: () => void }).close?.(); });
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as { event: string; name?: string; streamId?: string; media?: { contentType: string; sampleRate: number; payload: string } };
      if (msg.event === 'playAudio' && msg.media) {
        call.formats.add(`${msg.media.contentType};${msg.media.sampleRate}`);
        const n = Buffer.from(msg.media.payload, 'base64').length;
        call.played += n;
        queue.push(n);
      } else if (msg.event === 'checkpoint' && msg.streamId === streamId && msg.name) {
        call.checkpointsSent.push(msg.name);
        queue.push(msg.name);
      } else if (msg.event === 'sendDTMF' && typeof (msg as { dtmf?: unknown }).dtmf === 'string') {
        call.dtmfSent.push((msg as unknown as { dtmf: string }).dtmf);
      } else if (msg.event === 'clearAudio' && msg.streamId === streamId) {
        call.clears++;
        queue.length = 0;
        ws.send(JSON.stringify({ sequenceNumber: ++seq, event: 'clearedAudio', streamId }));
      }
    });
    ws.on('open', () => {
      const extra = (attr('extraHeaders') ?? '').replace(/,/g, ';');
      ws.send(JSON.stringify({ event: 'start', sequenceNumber: ++seq, start: { callId: call.callUuid, streamId, accountId: this.o.authId, tracks: ['inbound'],
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 } }, extra_headers: extra }));
      started = performance.now();
      let frame = 0;
      const silence = Buffer.alloc(160, 0xff);
      let lastHeard = 0; // frame at which agent audio last played
      let replyFrom = -1; // frame at which the callee started its reply
      let heardAfterReply = 0; // frames of agent audio played since the reply ended
      let interruptFrom = -1;
      const tick = () => {
        if (ws.readyState !== ws.OPEN) return;
        const due = Math.floor((performance.now() - started) / 20);
        for (; frame <= due; frame++) {
          const o = frame * 160;
          if (replyFrom < 0 && this.o.reply && lastHeard > 0 && frame - lastHeard >= 75 && o >= this.o.audio.length) replyFrom = frame;
          const ro = (frame - replyFrom) * 160;
          const replyDone = replyFrom >= 0 && ro >= this.o.reply!.length;
          if (interruptFrom < 0 && this.o.interrupt && replyDone && heardAfterReply >= 50) interruptFrom = frame;
          const io = (frame - interruptFrom) * 160;
          const payload = o < this.o.audio.length ? Buffer.from(this.o.audio.subarray(o, o + 160))
            : replyFrom >= 0 && ro < this.o.reply!.length ? Buffer.from(this.o.reply!.subarray(ro, ro + 160))
              : interruptFrom >= 0 && io < this.o.interrupt!.length ? Buffer.from(this.o.interrupt!.subarray(io, io + 160)) : silence;
          ws.send(JSON.stringify({ event: 'media', sequenceNumber: ++seq, streamId,
            media: { track: 'inbound', timestamp: String(Date.now()), chunk: frame + 1, payload: payload.toString('base64') }, extra_headers: extra }));
          // the callee's speaker: 160 bytes of queued agent audio play per 20 ms; a checkpoint at the head has played
          let budget = 160;
          while (queue.length && (typeof queue[0] === 'string' || budget > 0)) {
            const head = queue[0];
            if (typeof head === 'string') { queue.shift(); call.playedEchoed.push(head); ws.send(JSON.stringify({ event: 'playedStream', sequenceNumber: ++seq, streamId, name: head })); continue; }
            const take = Math.min(head, budget);
            if (lastHeard !== frame && replyFrom >= 0 && (frame - replyFrom) * 160 >= this.o.reply!.length) heardAfterReply++;
            lastHeard = frame;
            budget -= take;
            if (take === head) queue.shift(); else queue[0] = head - take;
          }
        }
        ticker = setTimeout(tick, 20 - ((performance.now() - started) % 20));
      };
      tick();
    });
  }
}

function unescapeXml(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos);/g, (_, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" })[e]!);
}
