/**
 * Open-loop constant-rate HTTP load (the wrk2 method): request i is due at start + i / rate whatever happened to
 * the earlier ones, and its latency runs from that due time, so a stalled server is charged for every request
 * that waited behind the stall (no coordinated omission).
 *
 * Why not autocannon's overallRate: each of its connections sends back to back until it has used its quota for
 * the current second, then pauses until the next one-second tick, so the "rate" arrives as a burst of every
 * connection at full speed at the start of each second; and its coordinated-omission correction passes
 * Math.ceil(1 / rate) (rate in requests per second) as the expected interval in milliseconds, which is always 1.
 * autocannon stays the tool for closed-loop capacity runs, which it does well.
 *
 * The client is a minimal keep-alive HTTP/1.1 one over `net` (one prebuilt request buffer, responses framed by
 * Content-Length) because the load shares the machine's two cores with the service and PostgreSQL: undici's
 * Pool measured 0.12 ms of CPU per request here, this 0.05, like autocannon.
 */
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface OpenLoopOptions {
  origin: string; path: string; method: 'GET' | 'POST'; headers: Record<string, string>; body?: string;
  /** requests per second offered */
  rate: number; seconds: number;
  /** keep-alive connections; a due request finding all busy waits for one (and that wait is in its latency) */
  connections: number;
  /** writes every request's latency here, in due order, after a first line with the start (epoch ms): when stalls hit */
  traceFile?: string;
}

export interface OpenLoopResult {
  sent: number; ok2xx: number; non2xx: number; errors: number;
  /** answered requests per second, from the first due time to the last answer */
  achievedRate: number;
  p50: number; p90: number; p99: number; max: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/** One keep-alive connection answering one request at a time; `done` gets the status code (0 on failure). */
class Conn {
  #buf: Buffer = Buffer.alloc(0);
  #need = -1; // bytes of the current response still to come once its head is read (-1: head not complete)
  #status = 0;
  #done?: (status: number) => void;
  readonly socket: Socket;
  closed = false;
  constructor(host: string, port: number, onIdle: (c: Conn) => void, onClosed: (c: Conn) => void) {
    this.socket = connect({ host, port, noDelay: true });
    this.socket.on('data', (chunk) => this.#read(chunk, onIdle));
    this.socket.on('error', () => this.#finish(0, onIdle));
    this.socket.on('close', () => { this.closed = true; this.#finish(0, onIdle); onClosed(this); });
  }
  send(request: Buffer, done: (status: number) => void): void { this.#done = done; this.socket.write(request); }
  #read(chunk: Buffer, onIdle: (c: Conn) => void): void {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    if (this.#need < 0) {
      const end = this.#buf.indexOf(HEADER_END);
      if (end < 0) return;
      const head = this.#buf.toString('latin1', 0, end);
      this.#status = Number(head.slice(9, 12));
      this.#need = Number(LENGTH.exec(head)?.[1] ?? 0);
      this.#buf = this.#buf.subarray(end + 4);
    }
    if (this.#buf.length < this.#need) return;
    this.#buf = this.#buf.subarray(this.#need);
    this.#need = -1;
    this.#finish(this.#status, onIdle);
  }
  #finish(status: number, onIdle: (c: Conn) => void): void {
    const done = this.#done;
    this.#done = undefined;
    if (!done) return;
    done(status);
    if (status) onIdle(this);
  }
}

export async function openLoop(o: OpenLoopOptions): Promise<OpenLoopResult> {
  const url = new URL(o.origin);
  const body = o.body ? Buffer.from(o.body) : undefined;
  const head = [`${o.method} ${o.path} HTTP/1.1`, `host: ${url.host}`, 'connection: keep-alive',
    ...Object.entries(o.headers).map(([k, v]) => `${k}: ${v}`), ...(body ? [`content-length: ${body.length}`] : []), '', ''].join('\r\n');
  const request = body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1');

  const total = Math.round(o.rate * o.seconds);
  const latencies = new Float64Array(total);
  let sent = 0, answered = 0, ok2xx = 0, non2xx = 0, errors = 0, lastAnswer = 0;
  const idle: Conn[] = [];
  const waiting: Array<{ due: number; i: number }> = []; // due requests that found every connection busy
  const issue = (c: Conn, due: number, i: number) => c.send(request, (status) => {
    lastAnswer = performance.now();
    latencies[i] = lastAnswer - due;
    if (!status) errors += 1; else { answered += 1; if (status >= 200 && status < 300) ok2xx += 1; else non2xx += 1; }
  });
  const onIdle = (c: Conn) => { const w = waiting.shift(); if (w) issue(c, w.due, w.i); else idle.push(c); };
  // A connection the server closed (its keep-alive timeout) is replaced; a request it carried counts as an error.
  let stopping = false;
  const conns = new Set<Conn>();
  const open = () => {
    const c = new Conn(url.hostname, Number(url.port), onIdle, (gone) => {
      conns.delete(gone);
      const at = idle.indexOf(gone);
      if (at >= 0) idle.splice(at, 1);
      if (!stopping) open();
    });
    conns.add(c);
    return new Promise<void>((r) => c.socket.once('connect', () => { if (!c.closed) onIdle(c); r(); }));
  };
  await Promise.all(Array.from({ length: o.connections }, open));

  const start = performance.now();
  const startEpoch = Date.now();
  const intervalMs = 1000 / o.rate;
  // A 1 ms timer issues whatever fell due since the last tick (timers are late, never early: no drift, and a
  // late tick's requests carry their lateness in their latency).
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      for (; sent < total && start + sent * intervalMs <= now; sent += 1) {
        const due = start + sent * intervalMs;
        const c = idle.shift(); // first in, first out: every connection stays in use, none idles into a timeout
        if (c) issue(c, due, sent); else waiting.push({ due, i: sent });
      }
      if (sent < total) setTimeout(tick, 1); else resolve();
    };
    tick();
  });
  // Drain: every request answered or failed (a connection that dies fails its request; waiting ones then fail).
  const deadline = performance.now() + 30_000;
  while (answered + errors < total && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  errors = total - answered; // failed, or unanswered by the deadline
  stopping = true;
  for (const c of conns) c.socket.destroy();
  if (o.traceFile) writeFileSync(o.traceFile, [startEpoch, ...Array.from(latencies.slice(0, sent), (l) => l.toFixed(2))].join('\n'));
  const sorted = latencies.slice(0, sent).sort();
  const q = (f: number) => Number(sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))].toFixed(1));
  return {
    sent, ok2xx, non2xx, errors, achievedRate: Math.round((answered * 1000) / Math.max(lastAnswer - start, 1)),
    p50: q(0.5), p90: q(0.9), p99: q(0.99), max: Number(sorted[sorted.length - 1].toFixed(1)),
  };
}
