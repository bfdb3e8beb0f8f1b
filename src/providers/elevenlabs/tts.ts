/**
 * ElevenLabs text-to-speech over HTTP streaming: POST /v1/text-to-speech/{voice}/stream. Telephone audio comes
 * as ulaw_8000 and goes to the phone as it arrives; PCM (the demo loop's WAV) as pcm_<rate>, resampled here only
 * when the wanted rate is not one ElevenLabs renders on every tier. Abort (barge-in) cancels the request at once.
 */
import { resample } from '../../audio/index.js';
import { AdapterError, type AdapterCallOptions, type SynthesisRequest, type TextToSpeechAdapter } from '../../adapters/types.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { Pcm16Bytes, providerRate } from '../pcm_bytes.js';
import { HttpError, errorDetail } from '../http/errors.js';
import { nextRetryMs, pause } from '../http/retry.js';
import { streamedBody, type HttpFailure } from '../http/stream.js';

/** ElevenLabs voice ids are 20 letters and digits (e.g. JBFqnCBsd6RMkjVDRZzb); anything else is another provider's name */
const VOICE_ID = /^[A-Za-z0-9]{20}$/;
/** PCM rates every tier gets (44.1 kHz needs Pro) */
const PCM_RATES = [8000, 16000, 22050, 24000] as const;
/** a synthesis waits this long for its next bytes when the caller gives no deadline, ms */
const DEFAULT_STALL_MS = 10_000;
/** one retry, before any audio, of an answer that says "try again" (429, 5xx, unreachable); a longer Retry-After is not waited */
const RETRY = { attempts: 2, baseMs: 250, jitter: 0, maxWaitMs: 1000 };

export interface ElevenLabsOptions { apiKey: string; baseUrl: string; voiceId: string; modelId: string; log: Logger }

export class ElevenLabsTts implements TextToSpeechAdapter {
  constructor(private readonly o: ElevenLabsOptions) {}

  /** The agent's voice when it is an ElevenLabs voice id, else the configured default. */
  voiceFor(voice: string): string { return VOICE_ID.test(voice) ? voice : this.o.voiceId; }

  synthesizeMulaw(req: SynthesisRequest, opts?: AdapterCallOptions): AsyncIterable<Uint8Array> {
    return this.#stream(req, 'ulaw_8000', opts);
  }

  async *synthesize(req: SynthesisRequest & { sampleRateHz: number }, opts?: AdapterCallOptions): AsyncGenerator<Int16Array> {
    if (!(Number.isInteger(req.sampleRateHz) && req.sampleRateHz > 0)) throw new AdapterError('tts', 'invalid', `unsupported sample rate ${req.sampleRateHz} Hz`);
    const rate = providerRate(req.sampleRateHz, PCM_RATES);
    const bytes = new Pcm16Bytes();
    for await (const chunk of this.#stream(req, `pcm_${rate}`, opts)) {
      const pcm = bytes.push(chunk);
      if (pcm.length) yield rate === req.sampleRateHz ? pcm : resample(pcm, rate, req.sampleRateHz);
    }
  }

  async *#stream(req: SynthesisRequest, format: string, opts: AdapterCallOptions = {}): AsyncGenerator<Uint8Array> {
    const voice = this.voiceFor(req.voice);
    const url = `${this.o.baseUrl.replace(/\/+$/, '')}/v1/text-to-speech/${encodeURIComponent(voice)}/stream?output_format=${format}`;
    const init: RequestInit = {
      method: 'POST',
      headers: { 'xi-api-key': this.o.apiKey, 'content-type': 'application/json', accept: 'audio/*' },
      body: JSON.stringify({ text: req.text, model_id: this.o.modelId }),
    };
    const timeoutMs = opts.timeoutMs && opts.timeoutMs > 0 ? opts.timeoutMs : DEFAULT_STALL_MS;
    for (let attempt = 0; ; attempt++) {
      let yielded = false;
      try {
        for await (const chunk of streamedBody('tts', 'elevenlabs', url, init, { ...opts, timeoutMs, onError: (f) => httpError(f, this.o.apiKey) })) {
          yielded = true;
          yield chunk;
        }
        return;
      } catch (err) {
        // a stall is not retried (the reply's deadline is spent), nor anything once audio has played
        const wait = yielded || (err as AdapterError).code === 'timeout' ? undefined : nextRetryMs(err, attempt, RETRY);
        if (wait === undefined) throw err;
        this.o.log.warn({ code: (err as AdapterError).code, voice }, 'elevenlabs synthesis failed, retrying once');
        await pause(wait, opts.signal, () => new AdapterError('tts', 'canceled', 'elevenlabs synthesis canceled'));
      }
    }
  }
}

/** ElevenLabs answers errors as {"detail": {"status": …, "message": …}} (or a string detail for validation). */
function httpError(f: HttpFailure, apiKey: string): AdapterError {
  const code = f.status === 429 || f.status >= 500 ? 'unavailable' : f.status === 400 || f.status === 422 ? 'invalid' : 'failed';
  return new HttpError('tts', code, `elevenlabs answered ${f.status}: ${errorDetail(f.detail, [apiKey], 280)}`, f.status, f.retryAfterMs);
}

/** TTS_PROVIDER=elevenlabs: the keys are checked by the catalog before this runs. */
export const elevenLabsTts = ({ config, log }: { config: Config; log: Logger }): ElevenLabsTts => new ElevenLabsTts({
  apiKey: config.ELEVENLABS_API_KEY!, baseUrl: config.ELEVENLABS_API_URL, voiceId: config.ELEVENLABS_VOICE_ID!, modelId: config.ELEVENLABS_MODEL_ID,
  log: log.child({ provider: 'elevenlabs' }),
});
