/**
 * A local OpenAI-compatible transcription endpoint: POST /v1/audio/transcriptions, multipart/form-data with
 * `file`, `model`, optional `language`, `response_format` (json -> {"text"}), Bearer auth, OpenAI's error body
 * ({"error":{"message","type","param","code"}}). It cannot recognise speech: each request gets the next text of
 * a script (or what `answer` returns for the audio it received). Failures are injected in order, one per request.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedTranscription {
  model: string; language?: string; responseFormat?: string; filename?: string; contentType?: string;
  /** read from the WAV header the client sent */
  sampleRateHz: number; channels: number; bitsPerSample: number; durationMs: number;
}

export interface InjectedFailure { status: number; headers?: Record<string, string>; body?: unknown; delayMs?: number }

export interface FakeTranscriptionOptions {
  apiKey?: string;
  /** texts returned in order (the last one repeats); default '' */
  script?: string[];
  /** overrides script: the text for the audio received */
  answer?(req: ReceivedTranscription): string;
  /** wait before answering a successful request, ms */
  latencyMs?: number;
}

export interface FakeTranscription {
  baseUrl: string;
  requests: ReceivedTranscription[];
  /** every HTTP attempt, failed or not, with its arrival time (performance.now) */
  attempts: Array<{ at: number; status: number }>;
  fail(...failures: InjectedFailure[]): void;
  close(): Promise<void>;
}

const openAiError = (message: string, type: string, code: string | null) => ({ error: { message, type, param: null, code } });

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c)).on('end', () => resolve(Buffer.concat(parts))).on('error', reject);
  });
}

function wavInfo(b: Buffer): { sampleRateHz: number; channels: number; bitsPerSample: number; durationMs: number } | undefined {
  if (b.length < 44 || b.toString('ascii', 0, 4) !== 'RIFF' || b.toString('ascii', 8, 12) !== 'WAVE') return undefined;
  const channels = b.readUInt16LE(22); const sampleRateHz = b.readUInt32LE(24); const bitsPerSample = b.readUInt16LE(34);
  const dataBytes = b.readUInt32LE(40);
  return { sampleRateHz, channels, bitsPerSample, durationMs: (dataBytes / (channels * bitsPerSample / 8) / sampleRateHz) * 1000 };
}

export async function startFakeTranscription(opts: FakeTranscriptionOptions = {}): Promise<FakeTranscription> {
  const apiKey = opts.apiKey ?? 'sk-test-transcription';
  const failures: InjectedFailure[] = [];
  const requests: ReceivedTranscription[] = [];
  const attempts: FakeTranscription['attempts'] = [];
  let scriptAt = 0;
  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      attempts.push({ at: performance.now(), status });
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    try {
      const raw = await readBody(req);
      if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') return send(404, openAiError('Not found', 'invalid_request_error', null));
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        return send(401, openAiError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
      }
      const injected = failures.shift();
      if (injected) {
        if (injected.delayMs) await new Promise((r) => setTimeout(r, injected.delayMs));
        return send(injected.status, injected.body ?? openAiError(`injected ${injected.status}`, 'server_error', null), injected.headers);
      }
      // the platform's own multipart parser (undici), not ours
      const form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? '' }, body: new Uint8Array(raw) }).formData();
      const file = form.get('file');
      const model = form.get('model');
      if (!(file instanceof Blob) || typeof model !== 'string' || !model) {
        return send(400, openAiError('file and model are required', 'invalid_request_error', null));
      }
      const info = wavInfo(Buffer.from(await file.arrayBuffer()));
      if (!info) return send(400, openAiError('Invalid file format.', 'invalid_request_error', null));
      const language = form.get('language'); const responseFormat = form.get('response_format');
      const received: ReceivedTranscription = {
        model, ...info, filename: (file as File).name, contentType: file.type,
        ...(typeof language === 'string' ? { language } : {}), ...(typeof responseFormat === 'string' ? { responseFormat } : {}),
      };
      requests.push(received);
      const script = opts.script ?? [''];
      const text = opts.answer ? opts.answer(received) : script[Math.min(scriptAt++, script.length - 1)];
      if (opts.latencyMs) await new Promise((r) => setTimeout(r, opts.latencyMs));
      if (received.responseFormat === 'text') { attempts.push({ at: performance.now(), status: 200 }); res.writeHead(200, { 'content-type': 'text/plain' }).end(text); return; }
      send(200, { text, usage: { type: 'duration', seconds: Math.ceil(info.durationMs / 1000) } });
    } catch (err) {
      if (!res.headersSent) send(500, openAiError(String(err), 'server_error', null));
    }
  });
  server.on('clientError', (_e, socket) => socket.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`, requests, attempts,
    fail: (...f) => { failures.push(...f); },
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
