/**
 * A local Exotel, built from Exotel's documented messages (src/carriers/exotel/README.md):
 * - REST: POST /v1/Accounts/:sid/Calls/connect[.json] (form, Basic api key:token; Url must be the flow's
 *   http://my.exotel.com/{sid}/exoml/start_voice/{app_id}) -> {"call":{"sid","status":"in-progress",...}};
 *   errors as {"RestException":{"Status","Message"}}.
 * - The flow: StatusCallback (form POST, EventType=answered), then the Voicebot applet fetches its URL endpoint
 *   (GET ?CallSid&CallFrom&CallTo&CustomField) and reads {"url"}; when the bot closes the socket the flow goes on:
 *   a Passthru (GET, 200 = go on to Connect, else hang up) and the Connect applet's number URL, when configured;
 *   at the end StatusCallback with EventType=terminal and Status (completed, busy, no-answer, failed).
 * - The Connect applet's playback set to a URL ("Read text like a robot", dynamic): before connecting the dialed
 *   number, a HEAD then a GET (CallSid, From, To, DialWhomNumber) that must answer application/json
 *   {"start_call_playback": {"playback_to": "callee"|"both", "type": "text"|"audio_url", "value"}}; the text is
 *   heard by the dialed human alone (callee) or by both, while the caller hears the applet's ringing.
 * - A call to one of our ExoPhones (ringIn): the flow's Voicebot applet fetches its URL with Direction=incoming,
 *   CallFrom (the caller, as Exotel writes it: 0 and ten digits), CallTo (the ExoPhone), and streams as above.
 * - The caller's keys: `dtmf` (dtmf.digit, dtmf.duration) on the stream, on demand.
 * - A media client: connected, start (snake_case, custom_parameters from the URL's query), media every 100 ms in
 *   real time (base64 16-bit LE PCM 8 kHz, 1600 bytes), stop at the caller's hang-up; checks that every media chunk
 *   we receive is a multiple of 320 bytes, plays it at 16 bytes/ms, echoes each mark once the audio before it has
 *   played, and on clear drops what has not played and echoes the pending marks.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import WebSocket from 'ws';

export type ExotelBehaviour = 'answer' | 'busy' | 'no-answer' | 'silent' | 'invalid' | 'ratelimit-once';

export interface FakeExotelCall {
  sid: string;
  form: URLSearchParams;
  streamUrl?: string;
  ws?: WebSocket;
  /** PCM bytes received, chunks that were not whole 320-byte blocks or under 100 ms (the last of a reply aside) */
  played: number;
  chunks: number[];
  badChunks: number[];
  marksSent: string[];
  marksEchoed: string[];
  clears: number;
  dialed?: string[];
  /** the Connect applet's playback: what the dialed human heard before the caller was connected, and to whom it was played */
  calleeHeard?: string; playbackTo?: string;
  passthru?: number;
  ended?: string;
  callbacks: Array<{ event: string; status: number }>;
  streamSid?: string;
}

interface Options {
  sid: string;
  apiKey: string;
  apiToken: string;
  appId: string;
  /** our endpoints the flow's applets were configured with */
  appletUrl: () => string;
  passthruUrl?: () => string;
  /** what the flow waits for before its Passthru: Exotel takes its time, so our side may have moved on meanwhile */
  beforePassthru?: (call: FakeExotelCall) => Promise<unknown>;
  connectUrl?: () => string;
  /** the Connect applet's dynamic playback URL, when the flow has one */
  playbackUrl?: () => string;
  /** mu-law 8 kHz: what the callee says when the stream starts, and its reply once the agent pauses for 1.5 s */
  audio: Uint8Array;
  reply?: Uint8Array;
  /** mu-law 8 kHz the callee says over the agent once 1 s of the agent's answer to its reply has played (a barge-in) */
  interrupt?: Uint8Array;
  behaviour?: (to: string) => ExotelBehaviour;
}

/** G.711 mu-law to linear (ITU-T G.711), as a carrier's media server would decode the callee's line. */
function ulawToPcm16le(u8: Uint8Array): Buffer {
  const out = Buffer.alloc(u8.length * 2);
  for (let i = 0; i < u8.length; i++) {
    const u = ~u8[i] & 0xff;
    const mag = ((((u & 0x0f) << 3) + 0x84) << ((u >> 4) & 7)) - 0x84;
    out.writeInt16LE(u & 0x80 ? -mag : mag, i * 2);
  }
  return out;
}

export class FakeExotel {
  readonly calls: FakeExotelCall[] = [];
  readonly restLog: Array<{ path: string; status: number }> = [];
  #server!: Server;
  #limited = new Set<string>();
  #timers = new Set<NodeJS.Timeout>();
  readonly #audio: Buffer;
  readonly #reply?: Buffer;
  readonly #interrupt?: Buffer;
  baseUrl = '';

  constructor(private readonly o: Options) {
    this.#audio = ulawToPcm16le(o.audio);
    this.#reply = o.reply && ulawToPcm16le(o.reply);
    this.#interrupt = o.interrupt && ulawToPcm16le(o.interrupt);
  }

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

  /**
   * A lead calls our ExoPhone: the incoming flow's Voicebot applet asks its URL for the socket (Direction=incoming),
   * then streams. Without StatusCallback (Exotel calls none for an incoming call unless a flow asks).
   */
  async ringIn(o: { from: string; to: string }): Promise<FakeExotelCall & { appletStatus: number }> {
    const call: FakeExotelCall = { sid: randomBytes(16).toString('hex'), form: new URLSearchParams({ From: o.from, CallerId: o.to }), played: 0, chunks: [],
      badChunks: [], marksSent: [], marksEchoed: [], clears: 0, callbacks: [] };
    this.calls.push(call);
    const q = new URLSearchParams({ CallSid: call.sid, CallFrom: o.from, CallTo: o.to, Direction: 'incoming', CustomField: '' });
    const r = await fetch(withQuery(this.o.appletUrl(), q));
    const body = await r.json().catch(() => ({})) as { url?: string };
    if (r.status === 200 && typeof body.url === 'string') {
      call.streamUrl = body.url;
      this.#stream(call, q);
    } else call.ended = `applet_failed:${r.status}`;
    return Object.assign(call, { appletStatus: r.status });
  }

  /** The caller presses a key: a `dtmf` message on the stream. */
  sendDtmf(call: FakeExotelCall, digit: string): void {
    if (call.ws?.readyState === WebSocket.OPEN) {
      call.ws.send(JSON.stringify({ event: 'dtmf', sequence_number: '900', stream_sid: call.streamSid, dtmf: { digit, duration: '100' } }));
    }
  }

  /** The callee hangs up: stop (callended), the socket closes, the terminal status callback. */
  async callerHangup(call: FakeExotelCall): Promise<void> {
    call.ws?.send(JSON.stringify({ event: 'stop', sequence_number: '999', stream_sid: call.sid, stop: { call_sid: call.sid, account_sid: this.o.sid, reason: 'callended' } }));
    call.ended ??= 'caller';
    call.ws?.close(1000);
    await this.#status(call, 'terminal', 'completed');
  }

  #later(ms: number, f: () => unknown): void {
    const t = setTimeout(() => { this.#timers.delete(t); void Promise.resolve(f()).catch(() => {}); }, ms);
    this.#timers.add(t);
  }

  async #status(call: FakeExotelCall, event: 'answered' | 'terminal', status: string): Promise<void> {
    const url = call.form.get('StatusCallback');
    const events = [...call.form.entries()].filter(([k]) => k.startsWith('StatusCallbackEvents')).map(([, v]) => v);
    if (!url || (event === 'answered' && !events.includes('answered'))) return;
    const now = new Date().toISOString().replace('T', ' ').slice(0, 19);
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ CallSid: call.sid, EventType: event, Status: status, DateUpdated: now, DateCreated: now, RecordingUrl: '',
        To: String(call.form.get('CallerId')), From: String(call.form.get('From')) }) });
    await r.text();
    call.callbacks.push({ event: `${event}:${status}`, status: r.status });
  }

  async #rest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const c of req) raw += c;
    const path = req.url ?? '';
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      this.restLog.push({ path, status });
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    const fail = (status: number, message: string, h: Record<string, string> = {}) => send(status, { RestException: { Status: status, Message: message } }, h);
    if (req.headers.authorization !== `Basic ${Buffer.from(`${this.o.apiKey}:${this.o.apiToken}`).toString('base64')}`) return fail(401, 'Authentication failed');
    // Bulk call details, the documented example of an authenticated request: GET /v1/Accounts/{sid}/Calls.json
    const list = /^\/v1\/Accounts\/([^/]+)\/Calls\.json(\?.*)?$/.exec(path);
    if (req.method === 'GET' && list) {
      if (list[1] !== this.o.sid) return fail(403, 'Forbidden');
      const size = Number(new URLSearchParams(list[2]?.slice(1)).get('PageSize') ?? 50);
      return send(200, { Metadata: { Total: this.calls.length, PageSize: size, FirstPageUri: path }, Calls: this.calls.slice(0, size).map((c) => ({ Sid: c.sid })) });
    }
    if (req.method !== 'POST' || !/^\/v1\/Accounts\/[^/]+\/Calls\/connect(\.json)?$/.test(path) || !path.includes(`/Accounts/${this.o.sid}/`)) return fail(404, 'Not found');
    const form = new URLSearchParams(raw);
    if (form.get('Url') !== `http://my.exotel.com/${this.o.sid}/exoml/start_voice/${this.o.appId}`) return fail(400, 'Url is not a flow of this account');
    for (const k of ['From', 'CallerId']) if (!form.get(k)) return fail(400, `${k} is required`);
    const to = form.get('From')!;
    const behaviour = this.o.behaviour?.(to) ?? 'answer';
    if (behaviour === 'invalid') return fail(400, 'From is not a valid phone number');
    if (behaviour === 'ratelimit-once' && !this.#limited.has(to)) { this.#limited.add(to); return fail(429, 'Too many requests', { 'retry-after': '1' }); }
    const call: FakeExotelCall = { sid: randomBytes(16).toString('hex'), form, played: 0, chunks: [], badChunks: [], marksSent: [], marksEchoed: [], clears: 0, callbacks: [] };
    this.calls.push(call);
    send(200, { call: { sid: call.sid, status: 'in-progress', direction: 'outbound-api', from: to, to: form.get('CallerId') } });
    this.#later(50, async () => {
      if (behaviour === 'silent') return;
      if (behaviour === 'busy' || behaviour === 'no-answer') return this.#status(call, 'terminal', behaviour);
      await this.#status(call, 'answered', 'in-progress');
      const q = new URLSearchParams({ CallSid: call.sid, CallFrom: to, CallTo: String(form.get('CallerId')), Direction: 'outbound-api',
        CustomField: form.get('CustomField') ?? '' });
      const r = await fetch(withQuery(this.o.appletUrl(), q));
      const body = await r.json().catch(() => ({})) as { url?: string };
      if (r.status !== 200 || typeof body.url !== 'string') { call.ended = `applet_failed:${r.status}`; return this.#status(call, 'terminal', 'failed'); }
      call.streamUrl = body.url;
      this.#stream(call, q);
    });
  }

  /** After the bot leg: the Passthru and Connect applets when configured, then the terminal callback. */
  async #afterBot(call: FakeExotelCall, q: URLSearchParams): Promise<void> {
    if (call.ended) return;
    call.ended = 'bot';
    if (this.o.passthruUrl) {
      await this.o.beforePassthru?.(call);
      const r = await fetch(withQuery(this.o.passthruUrl(), q), { redirect: 'manual' });
      call.passthru = r.status;
      if (r.status === 200 && this.o.connectUrl) {
        const d = await fetch(withQuery(this.o.connectUrl(), q));
        const j = await d.json().catch(() => ({})) as { destination?: { numbers?: string[] } };
        call.dialed = j.destination?.numbers;
        if (call.dialed?.length && this.o.playbackUrl) await this.#playback(call, q, call.dialed[0]);
      }
    }
    await this.#status(call, 'terminal', 'completed');
  }

  /** The Connect applet's playback URL: HEAD and GET must agree on application/json; the text goes to whom it names. */
  async #playback(call: FakeExotelCall, q: URLSearchParams, dialWhom: string): Promise<void> {
    const pq = new URLSearchParams({ CallSid: q.get('CallSid') ?? call.sid, From: q.get('CallFrom') ?? '', To: q.get('CallTo') ?? '', DialWhomNumber: dialWhom });
    const head = await fetch(withQuery(this.o.playbackUrl!(), pq), { method: 'HEAD' });
    const r = await fetch(withQuery(this.o.playbackUrl!(), pq));
    const type = r.headers.get('content-type') ?? '';
    if (r.status !== 200 || !/^application\/json/.test(type) || head.headers.get('content-type') !== type) return;
    const j = await r.json().catch(() => ({})) as { start_call_playback?: { playback_to?: string; type?: string; value?: string } };
    const p = j.start_call_playback;
    if (!p || !['callee', 'both'].includes(p.playback_to ?? '') || !['text', 'audio_url'].includes(p.type ?? '') || typeof p.value !== 'string') return;
    call.playbackTo = p.playback_to;
    call.calleeHeard = p.value;
  }

  #stream(call: FakeExotelCall, q: URLSearchParams): void {
    const url = new URL(call.streamUrl!);
    const ws = new WebSocket(url);
    call.ws = ws;
    const streamSid = randomBytes(16).toString('hex');
    call.streamSid = streamSid;
    let seq = 0;
    const queue: Array<number | string> = [];
    let ticker: NodeJS.Timeout | undefined;
    let lastHeard = 0;
    let replyFrom = -1;
    let heardAfterReply = 0; // chunks of agent audio played since the reply ended
    let interruptFrom = -1;
    ws.on('error', () => {});
    ws.on('unexpected-response', (_req, res) => { call.ended = `upgrade_refused:${res.statusCode}`; void this.#status(call, 'terminal', 'failed'); });
    ws.on('close', () => { clearTimeout(ticker); void this.#afterBot(call, q); });
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as { event: string; stream_sid?: string; streamSid?: string; media?: { payload: string }; mark?: { name: string } };
      if ((m.stream_sid ?? m.streamSid) !== streamSid) return;
      if (m.event === 'media' && m.media) {
        const n = Buffer.from(m.media.payload, 'base64').length;
        call.chunks.push(n);
        if (n % 320 !== 0 || n < 1600) call.badChunks.push(n);
        call.played += n;
        queue.push(n);
      } else if (m.event === 'mark' && m.mark) {
        call.marksSent.push(m.mark.name);
        queue.push(m.mark.name);
      } else if (m.event === 'clear') {
        call.clears++;
        for (const x of queue.splice(0)) if (typeof x === 'string') this.#echo(ws, call, streamSid, ++seq, x);
      }
    });
    ws.on('open', () => {
      ws.send(JSON.stringify({ event: 'connected' }));
      ws.send(JSON.stringify({ event: 'start', sequence_number: String(++seq), stream_sid: streamSid, start: { stream_sid: streamSid, call_sid: call.sid,
        account_sid: this.o.sid, from: call.form.get('From'), to: call.form.get('CallerId'),
        custom_parameters: Object.fromEntries([...url.searchParams.entries()].slice(0, 3)),
        media_format: { encoding: 'audio/x-raw', sample_rate: '8000', bit_rate: '16' } } }));
      const started = performance.now();
      let chunk = 0;
      const silence = Buffer.alloc(1600);
      const tick = () => {
        if (ws.readyState !== ws.OPEN) return;
        const due = Math.floor((performance.now() - started) / 100);
        for (; chunk <= due; chunk++) {
          const o = chunk * 1600;
          if (replyFrom < 0 && this.#reply && lastHeard > 0 && chunk - lastHeard >= 15 && o >= this.#audio.length) replyFrom = chunk;
          const ro = (chunk - replyFrom) * 1600;
          const replyDone = replyFrom >= 0 && ro >= this.#reply!.length;
          if (interruptFrom < 0 && this.#interrupt && replyDone && heardAfterReply >= 10) interruptFrom = chunk;
          const io = (chunk - interruptFrom) * 1600;
          const pcm = o < this.#audio.length ? this.#audio.subarray(o, o + 1600)
            : replyFrom >= 0 && ro < this.#reply!.length ? this.#reply!.subarray(ro, ro + 1600)
              : interruptFrom >= 0 && io < this.#interrupt!.length ? this.#interrupt!.subarray(io, io + 1600) : silence;
          ws.send(JSON.stringify({ event: 'media', sequence_number: String(++seq), stream_sid: streamSid,
            media: { chunk: String(chunk + 1), timestamp: String(chunk * 100), payload: pcm.toString('base64') } }));
          // the callee's speaker: 1600 bytes (100 ms) of queued agent audio play per chunk time
          let budget = 1600;
          while (queue.length && (typeof queue[0] === 'string' || budget > 0)) {
            const head = queue[0];
            if (typeof head === 'string') { queue.shift(); this.#echo(ws, call, streamSid, ++seq, head); continue; }
            const take = Math.min(head, budget);
            budget -= take;
            if (lastHeard !== chunk && replyDone) heardAfterReply++;
            lastHeard = chunk;
            if (take === head) queue.shift(); else queue[0] = head - take;
          }
        }
        ticker = setTimeout(tick, 100 - ((performance.now() - started) % 100));
      };
      tick();
    });
  }

  #echo(ws: WebSocket, call: FakeExotelCall, streamSid: string, seq: number, name: string): void {
    call.marksEchoed.push(name);
    ws.send(JSON.stringify({ event: 'mark', sequence_number: String(seq), stream_sid: streamSid, mark: { name } }));
  }
}

/** Exotel adds its parameters to the URL as configured in the flow: after `&` when that URL has a query already. */
const withQuery = (url: string, q: URLSearchParams): string => `${url}${url.includes('?') ? '&' : '?'}${q}`;
