/**
 * Cartesia text-to-speech over its WebSocket: one socket per process, one context per synthesis (Cartesia's
 * multiplexing). The socket opens on first use and again after it drops or idles out; a context whose audio had
 * not started when the socket dropped is sent again once on the new socket. Barge-in sends {context_id, cancel}.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { resample } from '../../audio/index.js';
import { AdapterError, type AdapterCallOptions, type SynthesisRequest, type TextToSpeechAdapter } from '../../adapters/types.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { Pcm16Bytes, providerRate } from '../pcm_bytes.js';
import { ContextQueue, deliver, type ServerMessage } from './context_queue.js';

const VOICE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PCM_RATES = [8000, 16000, 22050, 24000, 44100, 48000] as const;
const DEFAULT_STALL_MS = 10_000;

export interface CartesiaOptions { apiKey: string; url: string; voiceId: string; modelId: string; version: string; log: Logger }

type OutputFormat = { container: 'raw'; encoding: 'pcm_mulaw' | 'pcm_s16le'; sample_rate: number };

export class CartesiaTts implements TextToSpeechAdapter {
  readonly #contexts = new Map<string, ContextQueue>();
  #socket: Promise<WebSocket> | undefined;
  #closed = false;

  constructor(private readonly o: CartesiaOptions) {}

  voiceFor(voice: string): string { return VOICE_ID.test(voice) ? voice : this.o.voiceId; }

  synthesizeMulaw(req: SynthesisRequest, opts?: AdapterCallOptions): AsyncIterable<Uint8Array> {
    return this.#stream(req, { container: 'raw', encoding: 'pcm_mulaw', sample_rate: 8000 }, opts);
  }

  async *synthesize(req: SynthesisRequest & { sampleRateHz: number }, opts?: AdapterCallOptions): AsyncGenerator<Int16Array> {
    if (!(Number.isInteger(req.sampleRateHz) && req.sampleRateHz > 0)) throw new AdapterError('tts', 'invalid', `unsupported sample rate ${req.sampleRateHz} Hz`);
    const rate = providerRate(req.sampleRateHz, PCM_RATES);
    const bytes = new Pcm16Bytes();
    for await (const chunk of this.#stream(req, { container: 'raw', encoding: 'pcm_s16le', sample_rate: rate }, opts)) {
      const pcm = bytes.push(chunk);
      if (pcm.length) yield rate === req.sampleRateHz ? pcm : resample(pcm, rate, req.sampleRateHz);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const s = this.#socket;
    this.#socket = undefined;
    for (const q of this.#contexts.values()) q.fail(new AdapterError('tts', 'canceled', 'cartesia adapter closed'));
    if (s) (await s.catch(() => undefined))?.close(1000);
  }

  async *#stream(req: SynthesisRequest, format: OutputFormat, opts: AdapterCallOptions = {}): AsyncGenerator<Uint8Array> {
    const timeoutMs = opts.timeoutMs && opts.timeoutMs > 0 ? opts.timeoutMs : DEFAULT_STALL_MS;
    const canceled = () => new AdapterError('tts', 'canceled', 'cartesia synthesis canceled');
    if (opts.signal?.aborted) throw canceled();
    const contextId = randomUUID();
    const request = {
      model_id: this.o.modelId, transcript: req.text, voice: { mode: 'id', id: this.voiceFor(req.voice) }, output_format: format,
      context_id: contextId, continue: false, ...(req.language ? { language: req.language.split('-')[0].toLowerCase() } : {}),
    };
    let queue = new ContextQueue();
    let socket: WebSocket | undefined;
    const onAbort = () => queue.fail(canceled());
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const arm = (what: string) => { timer = setTimeout(() => queue.fail(new AdapterError('tts', 'timeout', `cartesia ${what} for ${timeoutMs} ms`)), timeoutMs); };
    try {
      for (let attempt = 0; ; attempt++) {
        this.#contexts.set(contextId, queue);
        try {
          arm('did not connect');
          const opening = this.#open();
          queue.socket = opening;
          socket = await Promise.race([opening, queue.failed]);
          clearTimeout(timer);
          socket.send(JSON.stringify(request));
          for (;;) {
            arm('sent no audio');
            const chunk = await queue.next();
            clearTimeout(timer);
            if (opts.signal?.aborted) throw canceled();
            if (!chunk) return;
            yield chunk;
          }
        } catch (err) {
          clearTimeout(timer);
          const e = err as AdapterError;
          // a dropped socket before any audio: the provider rendered nothing we heard, so sending it again is safe
          if (!(e as { socketLost?: boolean }).socketLost || queue.received || attempt > 0 || opts.signal?.aborted) throw err;
          this.o.log.warn({ code: e.code }, 'cartesia socket lost before audio, sending the context again');
          queue = new ContextQueue();
        }
      }
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      this.#contexts.delete(contextId);
      // the provider may still be rendering it: cancel so no more audio is generated (and billed) for nobody
      if (!queue.settledByProvider) this.#cancel(socket, contextId);
    }
  }

  #cancel(socket: WebSocket | undefined, contextId: string): void {
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ context_id: contextId, cancel: true }));
  }

  /** The process's socket, opened when there is none (first use, after a drop or an idle close). */
  #open(): Promise<WebSocket> {
    if (this.#closed) return Promise.reject(new AdapterError('tts', 'canceled', 'cartesia adapter closed'));
    if (this.#socket) return this.#socket;
    const p: Promise<WebSocket> = new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(this.o.url, { headers: { 'X-API-Key': this.o.apiKey, 'Cartesia-Version': this.o.version } });
      const lost = (why: string) => {
        if (this.#socket === p) this.#socket = undefined;
        for (const q of this.#contexts.values()) if (q.socket === p) q.fail(Object.assign(new AdapterError('tts', 'unavailable', `cartesia socket ${why}`), { socketLost: true }));
      };
      ws.on('unexpected-response', (_req, res) => {
        const code = res.statusCode === 401 || res.statusCode === 403 ? 'failed' : 'unavailable';
        reject(new AdapterError('tts', code, `cartesia refused the socket: ${res.statusCode}`));
        res.resume();
        ws.terminate();
      });
      ws.on('open', () => resolve(ws));
      ws.on('error', (err) => { reject(new AdapterError('tts', 'unavailable', `cartesia socket error: ${err.message}`)); });
      ws.on('close', (code) => { reject(new AdapterError('tts', 'unavailable', `cartesia socket closed (${code})`)); lost(`closed (${code})`); });
      ws.on('message', (data, isBinary) => { if (!isBinary) this.#message(data.toString()); });
    });
    this.#socket = p;
    p.catch(() => { if (this.#socket === p) this.#socket = undefined; });
    return p;
  }

  #message(text: string): void {
    let m: ServerMessage;
    try { m = JSON.parse(text) as ServerMessage; } catch { this.o.log.warn('cartesia sent a message that is not JSON'); return; }
    const q = m.context_id ? this.#contexts.get(m.context_id) : undefined;
    if (q) deliver(m, q); // else a context we canceled or finished: its late messages are dropped
  }
}

/** TTS_PROVIDER=cartesia: the keys are checked by the catalog before this runs. */
export const cartesiaTts = ({ config, log }: { config: Config; log: Logger }): CartesiaTts => new CartesiaTts({
  apiKey: config.CARTESIA_API_KEY!, url: config.CARTESIA_API_URL, voiceId: config.CARTESIA_VOICE_ID!, modelId: config.CARTESIA_MODEL_ID,
  version: config.CARTESIA_VERSION, log: log.child({ provider: 'cartesia' }),
});
