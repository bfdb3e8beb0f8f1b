/**
 * What the live-mode carrier tests share: a service in SERVICE_MODE=live on a port known before it starts (the
 * carrier is told PUBLIC_BASE_URL), speech through an adapter server running the simulator's recogniser and voice
 * (live mode needs a speech provider; these tests are about the carrier), corpus audio for the callee, and a
 * receiver for the call.completed webhook.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as netServer } from 'node:net';
import { SimStt, SimTts, startAdapterServer } from '../../src/adapters/index.js';
import { simVoiceMulawFrames } from '../../src/simvoice/index.js';
import { API_KEY, api, startTestServer } from '../helpers/server.js';

export const auth = { headers: { 'x-api-key': API_KEY } };

export async function freePort(): Promise<number> {
  const s = netServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** The samples of a corpus file's data chunk (RIFF chunks walked, so any chunk before `data` is skipped). */
export function corpusData(name: string): Buffer {
  const b = readFileSync(`/work/shared/corpus/${name}`);
  for (let o = 12; o + 8 <= b.length;) {
    const id = b.toString('ascii', o, o + 4);
    const size = b.readUInt32LE(o + 4);
    if (id === 'data') return b.subarray(o + 8, Math.min(b.length, o + 8 + size));
    o += 8 + size + (size % 2);
  }
  throw new Error(`no data chunk in ${name}`);
}

/** The first seconds of a corpus call (mu-law 8 kHz): what the callee says as the call connects. */
export const calleeGreeting = (corpus = 'd02_white_snr20.wav', seconds = 3): Uint8Array => corpusData(corpus).subarray(0, 8000 * seconds);

/** A sentence the simulator's recogniser understands (mu-law 8 kHz): the callee's answer to the agent. */
export const calleeAnswer = (words = 'yes I am interested'): Uint8Array =>
  Buffer.concat([...simVoiceMulawFrames(words, { voice: 'callee' }).map((f) => Buffer.from(f)), Buffer.alloc(1600, 0xff)]);

export async function startLiveService(env: Record<string, string>, o: { databaseUrl?: string } = {}) {
  const speech = await startAdapterServer({ stt: new SimStt(), tts: new SimTts() });
  const port = await freePort();
  const srv = await startTestServer({ env: {
    SERVICE_MODE: 'live', PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}/v1`,
    ADAPTER_STT_URL: speech.address, ADAPTER_TTS_URL: speech.address, RING_TIMEOUT_SECONDS: '5',
    WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_POLL_MS: '50', ...env,
  }, databaseUrl: o.databaseUrl });
  return { srv, close: async () => { await srv.close(); speech.close(); } };
}

export async function webhookReceiver(): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const s: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => { bodies.push(body); res.writeHead(204).end(); });
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(s.address() as { port: number }).port}/hook`, bodies, close: () => new Promise<void>((r) => s.close(() => r())) };
}

export async function waitFor<T>(what: string, f: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function callOf(base: string, id: string) {
  return (await api(base, 'GET', `/calls/${id}`, auth)).body;
}

export const ENDED = ['completed', 'no_answer', 'busy', 'failed', 'canceled'];
