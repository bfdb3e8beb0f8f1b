/** Text-to-speech over gRPC: SynthesizeRequest in, PCM16 chunks streamed out. */
import * as grpc from '@grpc/grpc-js';
import type { AdapterCallOptions, TextToSpeechAdapter } from '../types.js';
import { callServerStream, serverStreamHandler, GrpcClient } from './calls.js';
import { streamWithDeadline } from '../deadline.js';
import { bytesToPcm, pcmToBytes } from './proto.js';

interface SynthesizeMsg { text: string; voice: string; language: string; sample_rate_hz: number }

export function ttsHandlers(impl: TextToSpeechAdapter): grpc.UntypedServiceImplementation {
  return {
    Synthesize: serverStreamHandler<SynthesizeMsg, { pcm16le: Buffer }>(async function* (m, opts) {
      const req = { text: m.text, voice: m.voice, language: m.language, sampleRateHz: m.sample_rate_hz || 8000 };
      for await (const pcm of impl.synthesize(req, opts)) yield { pcm16le: pcmToBytes(pcm) };
    }),
  };
}

export class GrpcTts implements TextToSpeechAdapter {
  readonly #rpc: GrpcClient;
  constructor(address: string, defaultTimeoutMs: number) {
    this.#rpc = new GrpcClient('tts', 'tts', address, defaultTimeoutMs);
  }

  synthesize(req: { text: string; voice: string; language: string; sampleRateHz: number }, opts?: AdapterCallOptions): AsyncIterable<Int16Array> {
    const method = this.#rpc.method('Synthesize');
    const msg: SynthesizeMsg = { text: req.text, voice: req.voice, language: req.language, sample_rate_hz: req.sampleRateHz };
    const ctx = this.#rpc.ctx;
    const timed = { ...opts, timeoutMs: opts?.timeoutMs ?? ctx.defaultTimeoutMs };
    return streamWithDeadline('tts', timed, async function* (signal) {
      for await (const m of callServerStream<{ pcm16le: Buffer }>(ctx, method, msg, { signal })) yield bytesToPcm(m.pcm16le);
    });
  }

  close(): void { this.#rpc.close(); }
}
