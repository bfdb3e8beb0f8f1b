/**
 * The bench's fake providers in one process: Deepgram live (ws /v1/listen), OpenAI-compatible Chat Completions
 * (/v1/chat/completions), ElevenLabs HTTP streaming (/v1/text-to-speech/{voice}/stream), and the carriers Twilio
 * (/2010-04-01/...), Plivo (/v1/Account/...) and Exotel (/v1/Accounts/.../Calls/connect) with their media clients.
 * Each is written from the documented wire protocol (the providers' and carriers' READMEs), not from the service's code.
 * Latencies are settings (settings.ts), so a bench can subtract them. GET /fakes/stats gives every counter,
 * POST /fakes/reset zeroes them between phases.
 *   node --import tsx bench/fakes/server.ts      (prints "FAKES_READY <port>" once listening; FAKES_PORT to pick it)
 * The carriers' credentials are the service's own settings (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, PLIVO_AUTH_ID,
 * PLIVO_AUTH_TOKEN, EXOTEL_ACCOUNT_SID, EXOTEL_API_KEY, EXOTEL_API_TOKEN), so one environment configures both sides.
 */
import { createServer } from 'node:http';
import { loadCallerAudio } from './caller_audio.js';
import { FakeChat } from './chat.js';
import { FakeDeepgram } from './deepgram.js';
import { FakeElevenLabs } from './elevenlabs.js';
import { FakeExotel } from './exotel.js';
import { sendJson } from './http.js';
import { emptyLineStats, type LineStats } from './phone.js';
import { FakePlivo } from './plivo.js';
import { fakeSettings } from './settings.js';
import { FakeTwilio } from './twilio.js';

const settings = fakeSettings();
const audio = loadCallerAudio(settings);
const lineStats: Record<'twilio' | 'plivo' | 'exotel', LineStats> = { twilio: emptyLineStats(), plivo: emptyLineStats(), exotel: emptyLineStats() };
const deepgram = new FakeDeepgram(settings);
const chat = new FakeChat(settings);
const elevenlabs = new FakeElevenLabs(settings);
const twilioFake = new FakeTwilio(settings, audio, lineStats.twilio);
const plivoFake = new FakePlivo(settings, audio, lineStats.plivo);
const exotelFake = new FakeExotel(settings, audio, lineStats.exotel);

// the fakes' own CPU since the last reset: at hundreds of calls they need about as much as the service
let cpuBase = process.cpuUsage();
const cpuMsSinceReset = () => { const c = process.cpuUsage(cpuBase); return (c.user + c.system) / 1000; };

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://fake');
  const path = url.pathname;
  void (async () => {
    if (path === '/fakes/stats' && req.method === 'GET') {
      sendJson(res, 200, { settings, cpuMs: cpuMsSinceReset(), carriers: lineStats, stt: deepgram.stats, chat: chat.stats, tts: elevenlabs.stats,
        callbacks: { twilio: twilioFake.callbacks.slice(-20), plivo: plivoFake.callbacks.slice(-20), exotel: exotelFake.callbacks.slice(-20) } });
      return;
    }
    if (path === '/fakes/reset' && req.method === 'POST') {
      for (const s of Object.values(lineStats)) Object.assign(s, emptyLineStats(), { active: s.active });
      for (const s of [deepgram.stats, chat.stats, elevenlabs.stats] as unknown as Array<Record<string, number>>) for (const k of Object.keys(s)) if (k !== 'active') s[k] = 0;
      cpuBase = process.cpuUsage();
      res.writeHead(204).end();
      return;
    }
    for (const h of [chat, twilioFake, plivoFake, exotelFake]) if (await h.handle(req, res, path)) return;
    if (await elevenlabs.handle(req, res, path, url.searchParams)) return;
    sendJson(res, 404, { error: `no fake serves ${req.method} ${path}` });
  })().catch((err: unknown) => {
    if (!res.headersSent) sendJson(res, 500, { error: err instanceof Error ? err.message : String(err) });
    else res.destroy();
  });
});
server.on('upgrade', (req, socket, head) => {
  socket.on('error', () => {});
  if (!deepgram.upgrade(req, socket, head)) socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
});
server.on('clientError', (_err, socket) => socket.destroy());

server.listen(Number(process.env.FAKES_PORT ?? 0), '127.0.0.1', () => {
  const port = (server.address() as { port: number }).port;
  process.stdout.write(`FAKES_READY ${port}\n`);
});

const shutdown = () => {
  for (const f of [twilioFake, plivoFake, exotelFake, deepgram]) f.close();
  server.close();
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 200).unref();
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
// started by a bench (launch.ts) with a stdin pipe: the bench going away ends the fakes too
if (process.env.FAKES_EXIT_WITH_STDIN === '1') process.stdin.on('end', shutdown).resume();
