/**
 * STT_PROVIDER=deepgram: a live socket per call (DeepgramStream) and, for whole utterances (the demo loop), a
 * short-lived socket that gets the audio and `CloseStream` and resolves with the final segments it returns.
 */
import { withDeadline } from '../../adapters/deadline.js';
import { AdapterError, type AdapterCallOptions, type SpeechToTextAdapter, type SttStream, type TranscriptResult } from '../../adapters/types.js';
import { mulawEncode } from '../../audio/g711.js';
import type { Logger } from '../../log.js';
import { CLOSE_STREAM, listenUrl, parseServerMessage } from './messages.js';
import { openListenSocket } from './socket.js';
import { DeepgramStream, type DeepgramStreamOptions } from './stream.js';

export interface DeepgramSttOptions extends Partial<Omit<DeepgramStreamOptions, 'url' | 'apiKey' | 'encoding' | 'sampleRateHz' | 'log'>> {
  apiKey: string;
  /** wss://api.deepgram.com/v1/listen, or a self-hosted / fake endpoint */
  url: string;
  model: string;
  log: Logger;
  endpointingMs?: number;
  utteranceEndMs?: number;
}

const encodingFor = (rateHz: number) => (rateHz === 8000 ? 'mulaw' as const : 'linear16' as const);

export class DeepgramStt implements SpeechToTextAdapter {
  constructor(private readonly o: DeepgramSttOptions) {}

  #url(language: string, sampleRateHz: number): string {
    return listenUrl(this.o.url, {
      model: this.o.model, language, encoding: encodingFor(sampleRateHz), sampleRateHz,
      endpointingMs: this.o.endpointingMs ?? 300, utteranceEndMs: this.o.utteranceEndMs ?? 1000,
    });
  }

  open(opts: { callId: string; language: string; sampleRateHz: number }): SttStream {
    return new DeepgramStream({
      url: this.#url(opts.language, opts.sampleRateHz), apiKey: this.o.apiKey, encoding: encodingFor(opts.sampleRateHz),
      sampleRateHz: opts.sampleRateHz, log: this.o.log.child({ call_id: opts.callId }),
      keepAliveMs: this.o.keepAliveMs ?? 4000, maxReconnects: this.o.maxReconnects ?? 5, reconnectBackoffMs: this.o.reconnectBackoffMs ?? 250,
      replayMaxMs: this.o.replayMaxMs ?? 30_000, closeWaitMs: this.o.closeWaitMs ?? 2000,
    });
  }

  transcribe(pcm: Int16Array, opts: { language: string; sampleRateHz: number } & AdapterCallOptions): Promise<TranscriptResult> {
    const endMs = Math.round((pcm.length / opts.sampleRateHz) * 1000);
    const audio = encodingFor(opts.sampleRateHz) === 'mulaw' ? mulawEncode(pcm) : new Uint8Array(pcm.slice().buffer);
    return withDeadline('stt', opts, (signal) => new Promise<TranscriptResult>((resolve, reject) => {
      const texts: string[] = [];
      let refused: AdapterError | undefined;
      let summarised = false;
      const ws = openListenSocket(this.#url(opts.language, opts.sampleRateHz), this.o.apiKey, (err) => { refused = err; });
      signal.addEventListener('abort', () => ws.terminate(), { once: true });
      ws.on('open', () => {
        // 100 ms per frame, as a live feed would send it; then CloseStream flushes the rest
        const step = Math.max(1, Math.round(audio.length / (endMs / 100 || 1)));
        for (let i = 0; i < audio.length; i += step) ws.send(audio.subarray(i, i + step));
        ws.send(CLOSE_STREAM);
      });
      ws.on('message', (data, isBinary) => {
        const m = parseServerMessage(data, isBinary);
        if (m.type === 'Results' && m.isFinal && m.transcript) texts.push(m.transcript);
        if (m.type === 'Metadata') summarised = true;
      });
      ws.on('error', (err) => this.o.log.debug({ err: err.message }, 'deepgram socket error'));
      ws.on('close', (code) => {
        if (refused) return reject(refused);
        if (!summarised && code !== 1000) return reject(new AdapterError('stt', 'unavailable', `Deepgram socket closed (${code}) before its summary`));
        resolve({ text: texts.join(' '), final: true, startMs: 0, endMs });
      });
    }));
  }
}
