/**
 * Fake ElevenLabs HTTP streaming (reference 4.1.1): POST /v1/text-to-speech/{voice_id}/stream?output_format=...
 * with xi-api-key, JSON {text, model_id, ...}; a chunked body of raw audio (ulaw_8000, pcm_8000 or pcm_16000), the
 * first bytes ttsFirstByteMs after the request, then 100 ms of audio every 100/ttsSpeedup ms. The audio is a tone
 * of 65 ms per character of text. A client that goes away stops it (counted as aborted).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { linearToMulaw } from './g711.js';
import { readBody, sendJson } from './http.js';
import type { FakeSettings } from './settings.js';

const MS_PER_CHAR = 65;
export interface TtsStats { requests: number; aborted: number; completed: number; unauthorized: number; badRequests: number; bytes: number }

export class FakeElevenLabs {
  readonly stats: TtsStats = { requests: 0, aborted: 0, completed: 0, unauthorized: 0, badRequests: 0, bytes: 0 };
  constructor(private readonly s: FakeSettings) {}

  async handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<boolean> {
    if (!/^\/v1\/text-to-speech\/[^/]+\/stream$/.test(path) || req.method !== 'POST') return false;
    this.stats.requests++;
    if (!req.headers['xi-api-key']) {
      this.stats.unauthorized++;
      sendJson(res, 401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } });
      return true;
    }
    let body: { text?: string };
    try { body = JSON.parse(await readBody(req)); } catch { body = {}; }
    const format = query.get('output_format') ?? 'mp3_44100_128';
    const rate = { ulaw_8000: 8000, pcm_8000: 8000, pcm_16000: 16000 }[format];
    if (!body.text || !rate) {
      this.stats.badRequests++;
      sendJson(res, 422, { detail: [{ loc: ['body', 'text'], msg: !body.text ? 'field required' : `output_format ${format} is not served by this fake`, type: 'value_error' }] });
      return true;
    }
    const totalMs = Math.max(100, body.text.length * MS_PER_CHAR);
    const chunkSamples = rate / 10;
    const ulaw = format === 'ulaw_8000';
    let sentMs = 0;
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const t0 = performance.now();
    res.on('close', () => { if (!done) { done = true; this.stats.aborted++; clearTimeout(timer); } });
    const next = () => {
      if (done) return;
      if (sentMs === 0) res.writeHead(200, { 'content-type': ulaw ? 'audio/basic' : 'audio/pcm', 'transfer-encoding': 'chunked' });
      const bytes = tone(chunkSamples, sentMs, rate, ulaw);
      this.stats.bytes += bytes.length;
      res.write(bytes);
      sentMs += 100;
      if (sentMs < totalMs) {
        timer = setTimeout(next, Math.max(0, t0 + this.s.ttsFirstByteMs + sentMs / this.s.ttsSpeedup - performance.now()));
        return;
      }
      done = true;
      this.stats.completed++;
      res.end();
    };
    timer = setTimeout(next, this.s.ttsFirstByteMs);
    return true;
  }
}

/** 100 ms of a 220 Hz tone at about -12 dBFS, as mu-law bytes or 16-bit little-endian PCM */
function tone(samples: number, fromMs: number, rate: number, ulaw: boolean): Buffer {
  const out = Buffer.alloc(ulaw ? samples : samples * 2);
  const start = (fromMs * rate) / 1000;
  for (let i = 0; i < samples; i++) {
    const v = Math.round(8000 * Math.sin((2 * Math.PI * 220 * (start + i)) / rate));
    if (ulaw) out[i] = linearToMulaw(v); else out.writeInt16LE(v, i * 2);
  }
  return out;
}
