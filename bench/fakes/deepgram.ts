/**
 * Fake Deepgram live transcription (reference 2.1) at /v1/listen: binary audio in (mulaw or linear16, as the query
 * says), text control messages KeepAlive / Finalize / CloseStream, and Results, SpeechStarted, UtteranceEnd and
 * Metadata out. It hears speech by energy: speech starts after 40 ms above -35 dBFS and ends after `endpointing` ms
 * (the query's, else the setting) below it; a final Results (is_final, speech_final) follows sttFinalMs after the
 * end it detected, and a Finalize is answered sttFinalMs later with a from_finalize Results of whatever is pending.
 * The words are a fixed sentence (it cannot really listen). Ten seconds without audio or KeepAlive close it.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { decodeMulaw, rmsDbfs } from './g711.js';
import type { FakeSettings } from './settings.js';

export const FAKE_TRANSCRIPT = 'my budget is eighty lakh in whitefield';
const SPEECH_DBFS = -35;

export interface SttStats { sockets: number; active: number; unauthorized: number; finals: number; finalizes: number; speechFinals: number; keepAlives: number; closeStreams: number }

export class FakeDeepgram {
  readonly stats: SttStats = { sockets: 0, active: 0, unauthorized: 0, finals: 0, finalizes: 0, speechFinals: 0, keepAlives: 0, closeStreams: 0 };
  readonly #wss = new WebSocketServer({ noServer: true });
  constructor(private readonly s: FakeSettings) {}

  /** true if the upgrade was ours */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (!url.pathname.endsWith('/listen')) return false;
    if (!/^(Token|Bearer)\s+\S+/i.test(req.headers.authorization ?? '')) {
      this.stats.unauthorized++;
      socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\r\n{"err_code":"INVALID_AUTH","err_msg":"Invalid credentials."}');
      return true;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#session(ws, url.searchParams));
    return true;
  }

  #session(ws: WebSocket, q: URLSearchParams): void {
    this.stats.sockets++;
    this.stats.active++;
    const linear = q.get('encoding') === 'linear16';
    const rate = Number(q.get('sample_rate') ?? 8000) || 8000;
    const interim = q.get('interim_results') === 'true';
    const vad = q.get('vad_events') === 'true';
    const utteranceEndMs = Number(q.get('utterance_end_ms') ?? 0);
    const ep = q.get('endpointing');
    const endpointingMs = ep === 'false' ? Infinity : Number(ep ?? NaN) > 0 ? Number(ep) : this.s.sttEndpointingMs;
    const requestId = crypto.randomUUID();
    const frameSamples = rate / 50; // 20 ms
    let carry = new Int16Array(0);
    let audioMs = 0;
    let loud = 0;
    let speaking = false;
    let speechStartMs = 0;
    let lastLoudMs = 0;
    /** start of speech not yet sent in a final result, or undefined */
    let pendingFrom: number | undefined;
    let nextInterimMs = 0;
    const timers = new Set<NodeJS.Timeout>();
    const later = (ms: number, fn: () => void) => { const t = setTimeout(() => { timers.delete(t); fn(); }, ms); timers.add(t); };
    let idle = setTimeout(() => ws.close(1011, 'NET-0001'), 10_000);
    const alive = () => { clearTimeout(idle); idle = setTimeout(() => ws.close(1011, 'NET-0001'), 10_000); };
    const send = (m: unknown) => { if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m)); };
    const results = (fromMs: number, toMs: number, text: string, flags: { is_final: boolean; speech_final: boolean; from_finalize?: boolean }) => {
      const words = text ? text.split(' ') : [];
      const span = (toMs - fromMs) / 1000 / Math.max(1, words.length);
      send({ type: 'Results', channel_index: [0, 1], duration: (toMs - fromMs) / 1000, start: fromMs / 1000, ...flags,
        channel: { alternatives: [{ transcript: text, confidence: text ? 0.98 : 0,
          words: words.map((w, i) => ({ word: w, start: fromMs / 1000 + i * span, end: fromMs / 1000 + (i + 1) * span, confidence: 0.98, punctuated_word: w })) }] },
        metadata: { request_id: requestId, model_info: { name: 'fake-nova-3', version: '0', arch: 'nova-3' }, model_uuid: requestId } });
    };
    /** the final of what is pending (empty if nothing is) */
    const final = (flags: { speech_final: boolean; from_finalize?: boolean }) => {
      const from = pendingFrom;
      pendingFrom = undefined;
      const text = from === undefined ? '' : FAKE_TRANSCRIPT;
      results(from ?? audioMs, from === undefined ? audioMs : lastLoudMs, text, { is_final: true, ...flags });
      this.stats.finals++;
      if (flags.speech_final) this.stats.speechFinals++;
      if (text && utteranceEndMs > 0) send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: lastLoudMs / 1000 });
    };
    const frame = (pcm: Int16Array) => {
      const isLoud = rmsDbfs(pcm) > SPEECH_DBFS;
      audioMs += 20;
      if (isLoud) { loud++; lastLoudMs = audioMs; } else loud = 0;
      if (!speaking && loud >= 2) {
        speaking = true;
        speechStartMs = audioMs - 40;
        pendingFrom ??= speechStartMs;
        nextInterimMs = audioMs + 500;
        if (vad) send({ type: 'SpeechStarted', channel: [0, 1], timestamp: speechStartMs / 1000 });
      }
      if (speaking && interim && audioMs >= nextInterimMs && pendingFrom !== undefined) {
        const words = FAKE_TRANSCRIPT.split(' ');
        const n = Math.min(words.length, Math.max(1, Math.floor((audioMs - pendingFrom) / 300)));
        results(pendingFrom, audioMs, words.slice(0, n).join(' '), { is_final: false, speech_final: false });
        nextInterimMs = audioMs + 500;
      }
      if (speaking && audioMs - lastLoudMs >= endpointingMs) {
        speaking = false;
        later(this.s.sttFinalMs, () => { if (pendingFrom !== undefined) final({ speech_final: true }); });
      }
    };
    ws.on('error', () => {});
    ws.on('message', (data, isBinary) => {
      alive();
      if (!isBinary) {
        let msg: { type?: string };
        try { msg = JSON.parse(String(data)); } catch { ws.close(1008, 'DATA-0000'); return; }
        if (msg.type === 'KeepAlive') this.stats.keepAlives++;
        else if (msg.type === 'Finalize') { this.stats.finalizes++; later(this.s.sttFinalMs, () => final({ speech_final: false, from_finalize: true })); }
        else if (msg.type === 'CloseStream') {
          this.stats.closeStreams++;
          send({ type: 'Metadata', transaction_key: 'deprecated', request_id: requestId, sha256: '', created: new Date().toISOString(), duration: audioMs / 1000, channels: 1 });
          ws.close(1000);
        }
        return;
      }
      const buf = Buffer.isBuffer(data) ? data : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data as ArrayBuffer)]);
      const pcm = linear ? new Int16Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + (buf.length & ~1))) : decodeMulaw(buf);
      const all = new Int16Array(carry.length + pcm.length);
      all.set(carry);
      all.set(pcm, carry.length);
      let off = 0;
      for (; off + frameSamples <= all.length; off += frameSamples) frame(all.subarray(off, off + frameSamples));
      carry = all.slice(off);
    });
    ws.on('close', () => { this.stats.active--; clearTimeout(idle); for (const t of timers) clearTimeout(t); });
  }

  close(): void { for (const c of this.#wss.clients) c.terminate(); this.#wss.close(); }
}
