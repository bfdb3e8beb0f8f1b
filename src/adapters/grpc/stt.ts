/**
 * Speech-to-text over gRPC. Transcribe is one bidirectional stream per call: config, then audio and finalize
 * requests; spontaneous results (request_id 0) go to onResult listeners, each finalize gets its own reply.
 */
import * as grpc from '@grpc/grpc-js';
import type { AdapterCallOptions, ListenHint, SpeechToTextAdapter, SttStream, TranscriptResult } from '../types.js';
import { AdapterError } from '../types.js';
import { callUnary, unaryHandler, GrpcClient } from './calls.js';
import { fromServiceError, toServiceError } from './errors.js';
import { bytesToPcm, pcmToBytes } from './proto.js';
import { AudioBatcher } from './audio_batcher.js';
import { fromHintMsg, toHintMsg, type HintMsg } from './dialog.js';

/** audio per gRPC message, ms (see audio_batcher.ts) */
export const STT_BATCH_MS = 100;

interface ResultMsg { text: string; final: boolean; start_ms: number; end_ms: number; confidence: number; unheard?: boolean }
interface TranscribeIn {
  config?: { call_id: string; language: string; sample_rate_hz: number }; audio?: { pcm16le: Buffer; at_ms: number }; finalize?: { request_id: number };
  expect?: { hint: HintMsg | null }; speech_started?: { at_ms: number }; speech_stopped?: { at_ms: number; speech_end_ms: number };
}
interface TranscribeOut { result?: ResultMsg | null; request_id: number; error_code: string; error_message: string }

const toMsg = (r: TranscriptResult): ResultMsg => ({ text: r.text, final: r.final, start_ms: r.startMs, end_ms: r.endMs, confidence: r.confidence ?? 0, unheard: r.unheard ?? false });
const fromMsg = (m: ResultMsg): TranscriptResult => ({ text: m.text, final: m.final, startMs: m.start_ms, endMs: m.end_ms, confidence: m.confidence,
  ...(m.unheard ? { unheard: true } : {}) });
const ERROR_CODES = ['timeout', 'unavailable', 'failed', 'canceled', 'invalid'] as const;

export function sttHandlers(impl: SpeechToTextAdapter): grpc.UntypedServiceImplementation {
  return {
    Transcribe: (call: grpc.ServerDuplexStream<TranscribeIn, TranscribeOut>) => {
      let stream: SttStream | undefined;
      const send = (out: TranscribeOut) => { if (!call.cancelled && call.writable) call.write(out); };
      call.on('data', (m: TranscribeIn) => {
        if (m.config) {
          stream?.close();
          stream = impl.open({ callId: m.config.call_id, language: m.config.language, sampleRateHz: m.config.sample_rate_hz || 8000 });
          stream.onResult((r) => send({ result: toMsg(r), request_id: 0, error_code: '', error_message: '' }));
        } else if (!stream) {
          call.emit('error', toServiceError(new AdapterError('stt', 'invalid', 'the first Transcribe message must be a config')));
        } else if (m.audio) {
          stream.write(bytesToPcm(m.audio.pcm16le), m.audio.at_ms);
        } else if (m.expect) {
          stream.expect?.(fromHintMsg(m.expect.hint ?? undefined));
        } else if (m.speech_started) {
          stream.speechStarted?.(m.speech_started.at_ms);
        } else if (m.speech_stopped) {
          stream.speechStopped?.(m.speech_stopped.at_ms, m.speech_stopped.speech_end_ms);
        } else if (m.finalize) {
          const id = m.finalize.request_id;
          stream.finalize().then(
            (r) => send({ result: toMsg(r), request_id: id, error_code: '', error_message: '' }),
            (err) => send({ result: null, request_id: id, error_code: err instanceof AdapterError ? err.code : 'failed', error_message: String(err?.message ?? err) }),
          );
        }
      });
      call.on('end', () => { stream?.close(); if (!call.cancelled) call.end(); });
      call.on('cancelled', () => stream?.close());
      call.on('error', () => stream?.close());
    },
    Recognize: unaryHandler<{ pcm16le: Buffer; language: string; sample_rate_hz: number; hint: HintMsg | null }, ResultMsg>(async (m, opts) =>
      toMsg(await impl.transcribe(bytesToPcm(m.pcm16le), { language: m.language, sampleRateHz: m.sample_rate_hz || 8000,
        ...(m.hint ? { hint: fromHintMsg(m.hint) } : {}), ...opts }))),
  };
}

class GrpcSttStream implements SttStream {
  readonly #call: grpc.ClientDuplexStream<TranscribeIn, TranscribeOut>;
  readonly #listeners: Array<(r: TranscriptResult) => void> = [];
  readonly #pending = new Map<number, { resolve(r: TranscriptResult): void; reject(e: AdapterError): void }>();
  #nextId = 1;
  #failure: AdapterError | undefined;
  #closed = false;
  readonly #batcher: AudioBatcher;

  constructor(client: grpc.Client, config: NonNullable<TranscribeIn['config']>, private readonly defaultTimeoutMs: number, batchMs: number) {
    this.#batcher = new AudioBatcher(config.sample_rate_hz, batchMs, (pcm, atMs) => {
      if (!this.#closed && !this.#failure) this.#call.write({ audio: { pcm16le: pcmToBytes(pcm), at_ms: atMs } });
    });
    this.#call = (client as any).Transcribe(new grpc.Metadata());
    this.#call.on('data', (m: TranscribeOut) => this.#onData(m));
    this.#call.on('error', (err) => this.#fail(fromServiceError('stt', err)));
    this.#call.on('end', () => this.#fail(new AdapterError('stt', 'unavailable', 'speech stream ended by the server')));
    this.#call.write({ config });
  }

  write(pcm: Int16Array, atMs: number): void {
    if (this.#closed || this.#failure) return;
    this.#batcher.push(pcm, atMs);
  }

  expect(hint: ListenHint): void { this.#event({ expect: { hint: toHintMsg(hint) } }); }
  speechStarted(atMs: number): void { this.#event({ speech_started: { at_ms: atMs } }); }
  speechStopped(atMs: number, speechEndMs: number): void { this.#event({ speech_stopped: { at_ms: atMs, speech_end_ms: speechEndMs } }); }

  /** What the session knows of the turn, after the audio written before it (the server sees them in that order). */
  #event(m: TranscribeIn): void {
    if (this.#closed || this.#failure) return;
    this.#batcher.flush();
    this.#call.write(m);
  }

  finalize(opts?: AdapterCallOptions): Promise<TranscriptResult> {
    if (this.#closed) return Promise.reject(new AdapterError('stt', 'canceled', 'stream closed'));
    if (this.#failure) return Promise.reject(this.#failure);
    if (opts?.signal?.aborted) return Promise.reject(new AdapterError('stt', 'canceled', 'finalize canceled'));
    this.#batcher.flush(); // everything written so far counts
    const id = this.#nextId++;
    return new Promise<TranscriptResult>((resolve, reject) => {
      const timeoutMs = opts?.timeoutMs ?? this.defaultTimeoutMs;
      const done = () => { clearTimeout(timer); opts?.signal?.removeEventListener('abort', onAbort); this.#pending.delete(id); };
      const timer = timeoutMs > 0 ? setTimeout(() => { done(); reject(new AdapterError('stt', 'timeout', `stt finalize exceeded ${timeoutMs} ms`)); }, timeoutMs) : undefined;
      const onAbort = () => { done(); reject(new AdapterError('stt', 'canceled', 'finalize canceled')); };
      opts?.signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(id, { resolve: (r) => { done(); resolve(r); }, reject: (e) => { done(); reject(e); } });
      this.#call.write({ finalize: { request_id: id } });
    });
  }

  onResult(listener: (r: TranscriptResult) => void): void { this.#listeners.push(listener); }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#batcher.dispose();
    this.#listeners.length = 0;
    for (const p of [...this.#pending.values()]) p.reject(new AdapterError('stt', 'canceled', 'stream closed'));
    // half-close only: the server ends its side when it sees our end (a cancel would be an RST_STREAM)
    this.#call.end();
  }

  #onData(m: TranscribeOut): void {
    if (m.request_id === 0) {
      if (m.result) for (const l of this.#listeners) l(fromMsg(m.result));
      return;
    }
    const p = this.#pending.get(m.request_id);
    if (!p) return; // timed out or canceled already
    if (m.error_code) {
      const code = (ERROR_CODES as readonly string[]).includes(m.error_code) ? m.error_code as AdapterError['code'] : 'failed';
      p.reject(new AdapterError('stt', code, m.error_message));
    } else if (m.result) p.resolve(fromMsg(m.result));
  }

  #fail(err: AdapterError): void {
    if (this.#failure || this.#closed) return;
    this.#failure = err;
    for (const p of [...this.#pending.values()]) p.reject(err);
  }
}

export class GrpcStt implements SpeechToTextAdapter {
  readonly #rpc: GrpcClient;
  /** batchMs: audio per message (0 = one message per write) */
  constructor(address: string, defaultTimeoutMs: number, private readonly batchMs = STT_BATCH_MS) {
    this.#rpc = new GrpcClient('stt', 'stt', address, defaultTimeoutMs);
  }

  open(opts: { callId: string; language: string; sampleRateHz: number }): SttStream {
    const config = { call_id: opts.callId, language: opts.language, sample_rate_hz: opts.sampleRateHz };
    return new GrpcSttStream(this.#rpc.channel, config, this.#rpc.ctx.defaultTimeoutMs, this.batchMs);
  }

  async transcribe(pcm: Int16Array, opts: { language: string; sampleRateHz: number; hint?: ListenHint } & AdapterCallOptions): Promise<TranscriptResult> {
    const method = this.#rpc.method('Recognize');
    const r = await callUnary<ResultMsg>(this.#rpc.ctx, method, { pcm16le: pcmToBytes(pcm), language: opts.language, sample_rate_hz: opts.sampleRateHz,
      ...(opts.hint ? { hint: toHintMsg(opts.hint) } : {}) }, opts);
    return fromMsg(r);
  }

  close(): void { this.#rpc.close(); }
}
