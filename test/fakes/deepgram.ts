/**
 * A local Deepgram live server (/v1/listen) built from Deepgram's documented messages (src/providers/deepgram/README.md): `Authorization: Token <key>` or 401; binary audio (mulaw or linear16 at the query's rate); text controls
 * KeepAlive, Finalize (answered by a Results with from_finalize:true) and CloseStream (the rest, a Metadata
 * summary, close 1000); Results interim (is_final:false) and final (is_final, speech_final after `endpointing` ms
 * of quiet); SpeechStarted with vad_events=true; UtteranceEnd after utterance_end_ms; close 1011 "NET-0001" after
 * idleTimeoutMs with neither audio nor KeepAlive.
 *
 * It cannot recognise speech. Audio louder than `speechRms` is "speech"; each run of speech is the next utterance
 * of `script` (counted over every connection, so audio replayed after a drop gets the same words again), revealed
 * one word per msPerWord in interim results. Assumption (not in the reference): like the real service it sends
 * empty finals over long silence (silenceFinalMs) so its finals cover all the audio. Time is audio time.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';

export interface FakeDeepgramOptions {
  apiKey?: string;
  script?: string[];
  speechRms?: number;
  msPerWord?: number;
  silenceFinalMs?: number;
  idleTimeoutMs?: number;
  /** for connection i (0-based), cut the socket (no close frame) once it has received this much audio, ms */
  dropAtMs?: Array<number | undefined>;
  /** answer the next upgrades with these HTTP statuses instead of 101, in order */
  refuse?: number[];
  /** start the script again once it is used up (many calls, benchmarks); default: '' after the last line */
  loop?: boolean;
  /** wall-clock wait before each final result goes out (the service's processing time); later messages queue behind it */
  finalLatencyMs?: number;
}

export interface FakeDeepgramConnection {
  query: Record<string, string>;
  authorization?: string;
  /** audio received, ms, and its bytes */
  audioMs: number;
  bytes: number;
  /** control messages received, with the audio time they came at */
  controls: Array<{ type: string; atMs: number; wallAt: number }>;
  /** every message sent, parsed */
  sent: Array<Record<string, any>>;
  closed?: { code: number; by: 'client' | 'server' };
}

export interface FakeDeepgram {
  url: string;
  connections: FakeDeepgramConnection[];
  /** upgrades refused (auth or injected) */
  refusals: number[];
  /** sends raw data on the latest connection (malformed-message tests) */
  inject(data: string | Buffer): void;
  close(): Promise<void>;
}

function mulawToLinear(u: number): number {
  u = ~u & 0xff;
  const exp = (u >> 4) & 7;
  const mag = ((((u & 0x0f) << 3) + 0x84) << exp) - 0x84;
  return u & 0x80 ? -mag : mag;
}

const MODEL = { name: 'general-nova-3', version: '2025-05-17.21557', arch: 'nova-3' };

export async function startFakeDeepgram(opts: FakeDeepgramOptions = {}): Promise<FakeDeepgram> {
  const apiKey = opts.apiKey ?? 'dg-test-key';
  const script = opts.script ?? [];
  const speechRms = opts.speechRms ?? 500;
  const msPerWord = opts.msPerWord ?? 200;
  const refuse = [...(opts.refuse ?? [])];
  const connections: FakeDeepgramConnection[] = [];
  const refusals: number[] = [];
  let utterancesDone = 0;
  // List Projects: GET /v1/projects with `Authorization: Token <key>`
  const http: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method !== 'GET' || req.url !== '/v1/projects') return send(404, { err_code: 'NOT_FOUND', err_msg: 'Not found', request_id: randomUUID() });
    if (req.headers.authorization !== `Token ${apiKey}`) return send(401, { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: randomUUID() });
    send(200, { projects: [{ project_id: '3b8c9e2a-0000-4000-8000-000000000001', name: 'fake project' }] });
  });
  const wss = new WebSocketServer({ noServer: true });
  http.on('clientError', (_e, socket) => socket.destroy());
  wss.on('error', () => {});

  http.on('upgrade', (req, socket, head) => {
    socket.on('error', () => {});
    const u = new URL(req.url ?? '/', 'http://fake');
    const status = u.pathname !== '/v1/listen' ? 404 : req.headers.authorization !== `Token ${apiKey}` ? 401 : refuse.shift();
    if (status) {
      refusals.push(status);
      const body = JSON.stringify({ err_code: status === 401 ? 'INVALID_AUTH' : 'REFUSED', err_msg: status === 401 ? 'Invalid credentials.' : 'refused', request_id: randomUUID() });
      socket.end(`HTTP/1.1 ${status} Refused\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, Object.fromEntries(u.searchParams), req.headers.authorization));
  });

  function serve(ws: WebSocket, query: Record<string, string>, authorization?: string): void {
    const conn: FakeDeepgramConnection = { query, authorization, audioMs: 0, bytes: 0, controls: [], sent: [] };
    const index = connections.push(conn) - 1;
    const rate = Number(query.sample_rate ?? 16000);
    const mulaw = query.encoding === 'mulaw';
    const bytesPerSample = mulaw ? 1 : 2;
    const frameSamples = rate / 50;
    const endpointing = query.endpointing === 'false' ? Infinity : Number(query.endpointing ?? 10);
    const utteranceEndMs = query.utterance_end_ms ? Number(query.utterance_end_ms) : undefined;
    const requestId = randomUUID();
    let pending = Buffer.alloc(0);
    let finalizedUntil = 0;
    let speech: { startMs: number; lastVoiceMs: number; words: string[]; revealed: number; spent: boolean } | undefined;
    let utteranceEndDue: number | undefined;
    let idle: NodeJS.Timeout | undefined;
    // messages leave in order; a delayed final holds back what follows it
    let queue: Promise<void> = Promise.resolve();
    let queued = 0;
    const after = (delayMs: number, fn: () => void) => {
      if (!delayMs && !queued) { fn(); return; }
      queued++;
      queue = queue.then(() => new Promise<void>((r) => setTimeout(r, delayMs))).then(() => { queued--; fn(); });
    };
    const send = (m: Record<string, any>) => {
      conn.sent.push(m);
      after(m.type === 'Results' && m.is_final ? opts.finalLatencyMs ?? 0 : 0, () => { if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m)); });
    };
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => { conn.closed ??= { code: 1011, by: 'server' }; ws.close(1011, 'NET-0001: did not receive audio data or a text message within the timeout window'); }, opts.idleTimeoutMs ?? 10_000);
    };
    touch();

    const results = (text: string, endMs: number, flags: { is_final: boolean; speech_final?: boolean; from_finalize?: boolean }) => {
      const words = text ? text.split(/\s+/) : [];
      const start = finalizedUntil / 1000; const duration = (endMs - finalizedUntil) / 1000;
      send({
        type: 'Results', channel_index: [0, 1], duration, start, is_final: flags.is_final, speech_final: flags.speech_final ?? false,
        channel: { alternatives: [{ transcript: text, confidence: text ? 0.97 : 0, words: words.map((w, i) => ({
          word: w.toLowerCase(), start: start + (duration * i) / words.length, end: start + (duration * (i + 1)) / words.length, confidence: 0.97, punctuated_word: w,
        })) }] },
        metadata: { request_id: requestId, model_info: MODEL, model_uuid: '40bd3654-e622-46c4-a111-54a61b23bfe8' },
        from_finalize: flags.from_finalize ?? false,
      });
      if (flags.is_final) finalizedUntil = endMs;
    };
    /** the utterance in progress, whole, as a final (endpoint, Finalize or CloseStream) */
    const finishSpeech = (endMs: number, flags: { speech_final?: boolean; from_finalize?: boolean }) => {
      const s = speech!;
      results(s.spent ? '' : s.words.join(' '), endMs, { is_final: true, ...flags });
      if (!s.spent) utterancesDone++;
      utteranceEndDue = s.lastVoiceMs;
    };

    const frame = (samples: number[], endMs: number) => {
      const rms = Math.sqrt(samples.reduce((a, x) => a + x * x, 0) / samples.length);
      const startMs = endMs - 20;
      if (rms >= speechRms) {
        if (!speech) {
          const text = (opts.loop && script.length ? script[utterancesDone % script.length] : script[utterancesDone]) ?? '';
          speech = { startMs, lastVoiceMs: endMs, words: text ? text.split(/\s+/) : [], revealed: 0, spent: false };
          if (query.vad_events === 'true') send({ type: 'SpeechStarted', channel: [0, 1], timestamp: startMs / 1000 });
        }
        speech.lastVoiceMs = endMs;
        const show = Math.min(speech.words.length, Math.ceil((endMs - speech.startMs) / msPerWord));
        if (!speech.spent && show > speech.revealed && query.interim_results === 'true') {
          speech.revealed = show;
          results(speech.words.slice(0, show).join(' '), endMs, { is_final: false });
        }
        return;
      }
      if (speech && endMs - speech.lastVoiceMs >= endpointing) { finishSpeech(endMs, { speech_final: true }); speech = undefined; }
      if (utteranceEndDue !== undefined && utteranceEndMs !== undefined && endMs - utteranceEndDue >= utteranceEndMs) {
        send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: utteranceEndDue / 1000 });
        utteranceEndDue = undefined;
      }
      if (!speech && endMs - finalizedUntil >= (opts.silenceFinalMs ?? 1000)) results('', endMs, { is_final: true });
    };

    ws.on('message', (data: Buffer, isBinary) => {
      if (conn.closed) return; // a cut socket hears nothing more, even what was already in its buffer
      touch();
      if (isBinary) {
        conn.bytes += data.length;
        pending = Buffer.concat([pending, data]);
        const frameBytes = frameSamples * bytesPerSample;
        while (pending.length >= frameBytes) {
          const samples: number[] = [];
          for (let i = 0; i < frameSamples; i++) samples.push(mulaw ? mulawToLinear(pending[i]) : pending.readInt16LE(i * 2));
          pending = pending.subarray(frameBytes);
          conn.audioMs += 20;
          frame(samples, conn.audioMs);
        }
        const dropAt = opts.dropAtMs?.[index];
        if (dropAt !== undefined && conn.audioMs >= dropAt && !conn.closed) { conn.closed = { code: 1006, by: 'server' }; ws.terminate(); }
        return;
      }
      let msg: { type?: string };
      try { msg = JSON.parse(data.toString()); } catch { return; }
      conn.controls.push({ type: String(msg.type), atMs: conn.audioMs, wallAt: performance.now() });
      if (msg.type === 'Finalize') {
        if (speech) { finishSpeech(conn.audioMs, { from_finalize: true }); speech.spent = true; } else results('', conn.audioMs, { is_final: true, from_finalize: true });
      } else if (msg.type === 'CloseStream') {
        if (speech && !speech.spent) finishSpeech(conn.audioMs, { speech_final: true });
        send({ type: 'Metadata', transaction_key: 'deprecated', request_id: requestId, sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
          created: new Date().toISOString(), duration: conn.audioMs / 1000, channels: 1 });
        conn.closed = { code: 1000, by: 'server' };
        after(0, () => ws.close(1000));
      }
    });
    ws.on('close', (code) => { clearTimeout(idle); conn.closed ??= { code, by: 'client' }; });
    ws.on('error', () => {});
  }

  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const { port } = http.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/v1/listen`, connections, refusals,
    inject(data) { const c = [...wss.clients].at(-1); c?.send(data); },
    close: () => new Promise((r) => { for (const c of wss.clients) c.terminate(); wss.close(); http.closeAllConnections(); http.close(() => r()); }),
  };
}

// `npx tsx test/fakes/deepgram.ts` runs it on its own (benchmarks keep the fakes in another process) and prints
// its URL; the script loops; FAKE_DEEPGRAM_KEY, FAKE_DEEPGRAM_FINAL_LATENCY_MS and FAKE_DEEPGRAM_SCRIPT (lines split on "|") set it up.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = process.env;
  const fake = await startFakeDeepgram({
    apiKey: env.FAKE_DEEPGRAM_KEY, finalLatencyMs: Number(env.FAKE_DEEPGRAM_FINAL_LATENCY_MS ?? 0),
    script: env.FAKE_DEEPGRAM_SCRIPT?.split('|'), loop: true,
  });
  console.log(fake.url);
  process.on('SIGTERM', () => void fake.close().then(() => process.exit(0)));
}
