/**
 * The simulated callee's phone line: a WebSocket client that plays the carrier side of Twilio Media Streams
 * against our media edge (connected, start, 20 ms media both ways, mark echo, clear). It speaks the adapters'
 * SimulatedCallee script in its persona's offline voice (or tone code, SIM_SPEECH=tones) and hears the agent through
 * its ear (callee_ear.ts: the carrier's side channel tells it the agent's words, `told`), all on its own media clock
 * (frames × 20 ms), paced at wall time × timeScale. Like Twilio it buffers the agent's audio, echoes a mark once the
 * audio before it has played, and on clear drops the buffer and echoes every pending mark.
 */
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { MULAW_SILENCE, mulawDecode, PHONE_FRAME_SAMPLES } from '../../audio/index.js';
import type { Ticker } from '../../media/ticker.js';
import { twilioSignature } from '../../carriers/twilio/signature.js';
import type { SimScenario } from '../sim_numbers.js';
import { INTERJECTIONS, SimulatedCallee } from './callee.js';
import { CalleeEar, SubtitledEar } from './callee_ear.js';
import { calleeFrames, type SimSpeech } from './callee_voice.js';

const SILENCE = new Uint8Array(PHONE_FRAME_SAMPLES).fill(MULAW_SILENCE);
/** a simulated call never runs longer than this much media time (ms) */
const MAX_CALL_MS = 10 * 60_000;
/** at most this many frames are caught up per tick after event-loop lag */
const MAX_CATCH_UP = 25;

export interface SimCalleeLineOptions {
  mediaUrl: string; callId: string; carrierCallId: string; scenario: SimScenario; parameters: Record<string, string>;
  ticker: Ticker; timeScale: number;
  /** what the line speaks and how it knows the agent's words (default 'offline') */
  speech?: SimSpeech;
  /** the lead's name (the call's context): the persona answers with it */
  calleeName?: string;
  /** live-style signature on the upgrade (tests of the edge); unset = none */
  authToken?: string;
}

type Buffered = { frame: Uint8Array } | { mark: string };

export interface SimCalleeLine {
  done: Promise<void>;
  stats: { framesSent: number; framesHeard: number };
  /** the carrier's side channel: an agent sentence whose audio is being made (it arrives after this) */
  told(text: string): void;
}

export function startSimCalleeLine(o: SimCalleeLineOptions): SimCalleeLine {
  const headers = o.authToken ? { 'x-twilio-signature': twilioSignature(o.authToken, o.mediaUrl) } : undefined;
  const ws = new WebSocket(o.mediaUrl, { headers });
  const speech = o.speech ?? 'offline';
  const callee = new SimulatedCallee(o.callId, o.scenario, o.calleeName);
  // lines said over the agent render ahead: a render's wait (wall time, times the time scale) could land them after it stopped
  if (speech === 'offline') for (const line of Object.values(INTERJECTIONS)) void Promise.resolve(calleeFrames(speech, line, callee.persona.voice)).catch(() => {});
  const ear = speech === 'tones' ? new CalleeEar({ sampleRateHz: 8000 }) : new SubtitledEar({ sampleRateHz: 8000 });
  /** agent frames received so far: a sentence told now starts at or after this one */
  let framesReceived = 0;
  const streamSid = `MZ${randomBytes(16).toString('hex')}`;
  const stats = { framesSent: 0, framesHeard: 0 };
  const say: Uint8Array[] = [];
  const playBuf: Buffered[] = [];
  let pending: { atMs: number; frames?: Uint8Array[]; hangUp: boolean; keys?: string } | undefined;
  let hangUpWhenQuiet = false;
  let seq = 0;
  let startWall = 0;
  let untick = () => {};
  let open = false;
  const send = (m: object) => { if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m)); };
  const echoMark = (name: string) => send({ event: 'mark', sequenceNumber: String(++seq), streamSid, mark: { name } });
  /** the callee's words as frames: at once (tone code), or once its voice has rendered them */
  const utter = (text: string, ready: (frames: Uint8Array[]) => void) => {
    const f = calleeFrames(speech, text, callee.persona.voice);
    if (Array.isArray(f)) ready(f);
    else f.then((frames) => { if (open) ready(frames); }, () => ready([]));
  };

  const hangUp = () => {
    if (!open) return;
    open = false;
    untick();
    send({ event: 'stop', sequenceNumber: String(++seq), streamSid, stop: { accountSid: 'ACsimulator', callSid: o.carrierCallId } });
    ws.close(1000);
  };

  const step = () => {
    const mediaMs = stats.framesSent * 20;
    // what the callee says
    send({ event: 'media', sequenceNumber: String(++seq), streamSid,
      media: { track: 'inbound', chunk: String(stats.framesSent + 1), timestamp: String(mediaMs), payload: Buffer.from(say.shift() ?? SILENCE).toString('base64') } });
    stats.framesSent++;
    // what it hears: the carrier plays one buffered frame per 20 ms, echoing marks as their audio completes
    while (playBuf.length && 'mark' in playBuf[0]) echoMark((playBuf.shift() as { mark: string }).mark);
    const item = playBuf.shift() as { frame: Uint8Array } | undefined;
    const evs = item ? (stats.framesHeard++, ear.hear(mulawDecode(item.frame), mediaMs)) : ear.advance(mediaMs);
    while (playBuf.length && 'mark' in playBuf[0]) echoMark((playBuf.shift() as { mark: string }).mark);
    for (const e of evs) {
      if (e.type === 'words') {
        const i = callee.duringAgentSpeech(e.textSoFar);
        if (i) utter(i.say, (frames) => { if (!say.length) say.push(...frames); });
      } else {
        const r = callee.reply(e.text);
        const p: NonNullable<typeof pending> = { atMs: mediaMs + r.delayMs, hangUp: r.hangUp, keys: r.keys };
        pending = p;
        if (r.say) utter(r.say, (frames) => { p.frames = frames; }); else p.frames = [];
      }
    }
    if (pending?.frames && mediaMs >= pending.atMs) {
      say.push(...pending.frames);
      // a key press as the carrier reports it (Twilio's dtmf message on the media stream)
      for (const digit of pending.keys ?? '') send({ event: 'dtmf', sequenceNumber: String(++seq), streamSid, dtmf: { track: 'inbound_track', digit } });
      hangUpWhenQuiet ||= pending.hangUp;
      pending = undefined;
    }
    if ((hangUpWhenQuiet && !say.length) || mediaMs >= MAX_CALL_MS) hangUp();
  };

  const tick = () => {
    if (!open) return;
    const due = Math.floor(((performance.now() - startWall) * o.timeScale) / 20) - stats.framesSent;
    for (let i = 0; i < Math.min(due, MAX_CATCH_UP) && open; i++) step();
    if (due > MAX_CATCH_UP) startWall += ((due - MAX_CATCH_UP) * 20) / o.timeScale; // lag: slow the clock, never skip audio
  };

  const done = new Promise<void>((resolve) => {
    ws.on('open', () => {
      open = true;
      send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
      send({ event: 'start', sequenceNumber: String(++seq), streamSid, start: {
        accountSid: 'ACsimulator', streamSid, callSid: o.carrierCallId, tracks: ['inbound'], customParameters: o.parameters,
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } } });
      const greeting = callee.greeting();
      if (greeting) utter(greeting, (frames) => say.push(...frames));
      if (speech === 'offline') for (const line of callee.lines()) utter(line, () => {}); // kept, ready when the moment comes
      startWall = performance.now();
      untick = o.ticker.add(tick);
    });
    ws.on('message', (data) => {
      let m: { event?: string; media?: { payload?: string }; mark?: { name?: string } };
      try { m = JSON.parse(data.toString()); } catch { return; }
      if (m.event === 'media' && m.media?.payload) { framesReceived++; playBuf.push({ frame: new Uint8Array(Buffer.from(m.media.payload, 'base64')) }); }
      else if (m.event === 'mark' && m.mark?.name) { if (playBuf.length) playBuf.push({ mark: m.mark.name }); else echoMark(m.mark.name); }
      else if (m.event === 'clear') {
        let dropped = 0;
        for (const b of playBuf.splice(0)) if ('mark' in b) echoMark(b.mark); else dropped++;
        if (ear instanceof SubtitledEar) ear.skip(dropped);
      }
    });
    ws.on('close', () => { open = false; untick(); resolve(); });
    ws.on('error', () => { open = false; untick(); resolve(); });
  });
  return { done, stats, told: (text) => { if (ear instanceof SubtitledEar) ear.told(text, framesReceived); } };
}
