/**
 * A browser leg written from the protocol (src/carriers/browser/README.md), as a page would behave: it plays what
 * it gets at once (so each mark is echoed as it arrives, and every pending one on clear), keeps the live items,
 * and sends caller audio in 20 ms messages.
 */
import WebSocket from 'ws';

export interface Leg {
  ws: WebSocket;
  /** every parsed message from the server, in order */
  messages: Array<Record<string, any>>;
  /** agent audio bytes received */
  audioBytes: number;
  /** resolves with the close code and reason */
  closed: Promise<{ code: number; reason: string }>;
  send(m: object | string): void;
  /** resolves with the first message (already received or later) that `match` accepts */
  next(match: (m: Record<string, any>) => boolean, what: string, timeoutMs?: number): Promise<Record<string, any>>;
  /**
   * Starts the microphone: a 20 ms message of PCM16 at `rateHz` every `paceMs`, silence unless something is being
   * said (a page's microphone never stops while the call lasts: the call's media time runs on it).
   */
  microphone(rateHz: number, paceMs: number): void;
  /** queues `pcm` on the microphone; resolves once it has all been sent */
  say(pcm: Int16Array): Promise<void>;
}

export async function openLeg(url: string): Promise<Leg> {
  const ws = new WebSocket(url);
  const messages: Array<Record<string, any>> = [];
  const waiters = new Set<() => void>();
  const queue: Array<{ pcm: Int16Array; at: number; done: () => void }> = [];
  const leg: Leg = {
    ws, messages, audioBytes: 0,
    closed: new Promise((resolve) => ws.on('close', (code, reason) => { resolve({ code, reason: reason.toString() }); for (const w of waiters) w(); })),
    send: (m) => { if (ws.readyState === ws.OPEN) ws.send(typeof m === 'string' ? m : JSON.stringify(m)); },
    next: (match, what, timeoutMs = 30_000) => new Promise((resolve, reject) => {
      const check = () => {
        const hit = messages.find(match);
        if (hit) { done(); resolve(hit); } else if (ws.readyState === ws.CLOSED) { done(); reject(new Error(`closed before ${what}`)); }
      };
      const timer = setTimeout(() => { done(); reject(new Error(`no ${what} within ${timeoutMs} ms`)); }, timeoutMs);
      const done = () => { clearTimeout(timer); waiters.delete(check); };
      waiters.add(check);
      check();
    }),
    microphone(rateHz, paceMs) {
      const n = (rateHz / 1000) * 20;
      const silence = new Int16Array(n);
      const timer = setInterval(() => {
        if (ws.readyState !== ws.OPEN) { clearInterval(timer); return; }
        let chunk: Int16Array = silence;
        const now = queue[0];
        if (now) {
          chunk = now.pcm.subarray(now.at, now.at + n);
          now.at += n;
          if (now.at >= now.pcm.length) { queue.shift(); now.done(); }
        }
        leg.send({ event: 'media', payload: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('base64') });
      }, paceMs);
    },
    say: (pcm) => new Promise((done) => { queue.push({ pcm, at: 0, done }); }),
  };
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as Record<string, any>;
    messages.push(m);
    if (m.event === 'media') leg.audioBytes += Buffer.from(m.payload, 'base64').length;
    if (m.event === 'mark') leg.send({ event: 'mark', name: m.name });
    for (const w of waiters) w();
  });
  await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
  return leg;
}
