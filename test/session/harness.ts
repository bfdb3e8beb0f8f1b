/**
 * runSession(script): one call session (src/session/shell.ts) against scripted fakes, with no server, no socket
 * and no worker: a fake carrier that plays our frames one per 20 ms and echoes marks like Twilio, a detector that
 * emits the script's events at their media times, a speech-to-text that returns what the script's caller said,
 * a dialog that streams the script's replies chunk by chunk, and a TTS that makes 20 ms of audio per character.
 * Media time and the wall clock advance together, 20 ms per frame, driven by hand.
 */
import type { AudioEvent, CallAudioChannel, CallAudioState } from '../../src/audio/index.js';
import { AdapterError, type AdapterCallOptions, type DialogAdapter, type DialogEvent, type DialogTurnRequest, type SttStream, type TextToSpeechAdapter, type TranscriptResult } from '../../src/adapters/types.js';
import type { MediaHandlers, MediaStream } from '../../src/media/stream.js';
import type { RecordingSink } from '../../src/recordings/recorder.js';
import { CallSession } from '../../src/session/shell.js';
import type { SessionAction, SessionInput } from '../../src/session/events.js';
import type { SessionOutputs } from '../../src/session/outputs.js';
import type { AgentSnapshot } from '../../src/calls/types.js';
import { createLogger } from '../../src/log.js';

export type Step =
  | { at: number; event: 'SpeechStarted' | 'SpeechStopped' | 'TurnEnded' | 'BargeInDetected' }
  /** the caller's words reach the speech-to-text (returned by the next finalize) */
  | { at: number; says: string }
  | { at: number; interim: string }
  | { at: number; hangup: string }
  | { at: number; transfer: string };

export interface ScriptedReply {
  chunks: string[];
  ending?: { kind: 'escalate' | 'end_call'; reason: string };
  /** after this many chunks the model stalls until aborted (a slow model, a hang-up while thinking) */
  stallAfter?: number;
}

export interface Script {
  agent?: Partial<AgentSnapshot>;
  replies: ScriptedReply[];
  steps: Step[];
  untilMs: number;
  /** the carrier's transfer: resolves, or rejects with this message */
  transferFails?: string;
  /** wall ms each adapter takes (by the harness clock): finalize, the first chunk, each later chunk, the first audio */
  stageMs?: { stt?: number; firstText?: number; chunk?: number; tts?: number };
  replyMode?: 'streamed' | 'whole';
}

const AGENT: AgentSnapshot = {
  role: 'qualifier', voice: 'aria', language: 'en-US', interruption_sensitivity: 0.5, turn_detection_timeout_ms: 800,
  disclosure_script: 'This is an AI assistant.', qualify_script: [{ field: 'customer_name', question: 'May I have your name?' }],
};
const SILENT = new Int16Array(160);

export async function runSession(script: Script) {
  let now = 0;
  let running = true;
  /** resolves once the harness clock reaches `ms` from now (or the run is over) */
  const after = async (ms = 0) => { const until = now + ms; while (running && now < until) await new Promise((r) => setImmediate(r)); };
  const trace: Array<{ at: number; input: SessionInput; actions: readonly SessionAction[] }> = [];
  const carrier = new FakeCarrier();
  const detector = new ScriptedDetector(script.steps);
  const stage = script.stageMs ?? {};
  const stt = new ScriptedStt(() => after(stage.stt));
  const dialog = new ScriptedDialogFake(script.replies, (first) => after(first ? stage.firstText : stage.chunk));
  const out = recordingOutputs();
  const ticks = new Set<() => void>();
  const transfers: string[] = [];
  const session = new CallSession({
    callId: 'call_test', agent: { ...AGENT, ...script.agent }, language: 'en-US', context: {}, tools: [], timeScale: 1, adapterTimeoutMs: 1000,
    recording: nullSink(), replyMode: script.replyMode,
  }, {
    media: carrier, detector, adapters: { stt: { open: () => stt, transcribe: async () => ({ text: '', final: true, startMs: 0, endMs: 0 }) }, dialog, tts: charTts(() => after(stage.tts)) },
    out: out.outputs, ticker: { add: (fn) => { ticks.add(fn); return () => ticks.delete(fn); } }, log: createLogger('silent'),
    clock: () => now,
    transfer: async (target) => { transfers.push(target); if (script.transferFails) throw new Error(script.transferFails); },
    onStep: (input, actions) => trace.push({ at: now, input, actions }),
  });
  let endReason: string | undefined;
  void session.ended.then((r) => { endReason = r; });
  session.start();
  await settle();
  for (now = 20; now <= script.untilMs && endReason === undefined; now += 20) {
    for (const s of script.steps.filter((x) => x.at === now)) {
      if ('says' in s) stt.said(s.says);
      else if ('interim' in s) stt.interim(s.interim);
      else if ('hangup' in s) session.hangup(s.hangup);
      else if ('transfer' in s) void session.transfer(s.transfer).catch(() => {});
    }
    detector.now = now;
    carrier.handlers?.audio(SILENT);
    await settle();
    for (const f of [...ticks]) f();
    carrier.play();
    await settle();
  }
  running = false;
  return {
    session, trace, carrier, detector, dialog, transfers, endReason, ...out,
    phases: trace.map((x) => x.input.type === 'MediaAdvanced' ? undefined : `${x.input.type}`).filter(Boolean),
    actions: trace.flatMap((x) => x.actions.map((a) => ({ at: x.at, ...a }))),
  };
}

/** lets promise chains and async generators run to their next real wait */
async function settle(): Promise<void> { for (let i = 0; i < 8; i++) await new Promise((r) => setImmediate(r)); }

/** Twilio-like: buffers our frames, plays one per 20 ms, echoes a mark once what precedes it has played; clear drops the buffer. */
export class FakeCarrier implements MediaStream {
  readonly carrierCallId = 'CAtest';
  readonly parameters = {};
  handlers?: MediaHandlers;
  buffer: Array<{ frame: Uint8Array } | { mark: string }> = [];
  framesSent = 0;
  framesPlayed = 0;
  clears = 0;
  closed = false;
  attach(h: MediaHandlers): void { this.handlers = h; }
  sendMedia(frame: Uint8Array): void { this.framesSent++; this.buffer.push({ frame }); }
  sendMark(name: string): void { this.buffer.push({ mark: name }); }
  sendClear(): void {
    this.clears++;
    for (const b of this.buffer.splice(0)) if ('mark' in b) this.handlers?.mark(b.mark);
  }
  close(): void { this.closed = true; }
  play(): void {
    while (this.buffer.length && 'mark' in this.buffer[0]) this.handlers?.mark((this.buffer.shift() as { mark: string }).mark);
    if (this.buffer.length) { this.buffer.shift(); this.framesPlayed++; }
    while (this.buffer.length && 'mark' in this.buffer[0]) this.handlers?.mark((this.buffer.shift() as { mark: string }).mark);
  }
}

/** Emits the script's detector events on the frame that ends at their time; records the verdicts it is told. */
class ScriptedDetector implements CallAudioChannel {
  readonly callId = 'call_test';
  now = 0;
  verdicts: string[] = [];
  agentSpeakingAt: number[] = [];
  closed = false;
  #speechEndMs = 0;
  constructor(private readonly steps: Step[]) {}
  async pushMulaw(): Promise<AudioEvent[]> { throw new Error('the session pushes PCM'); }
  async pushPcm(_pcm: Int16Array, agentSpeaking: boolean): Promise<AudioEvent[]> {
    if (agentSpeaking) this.agentSpeakingAt.push(this.now);
    const atMs = this.now;
    return this.steps.filter((s): s is Extract<Step, { event: string }> => 'event' in s && s.at === atMs).map((s): AudioEvent => {
      switch (s.event) {
        case 'SpeechStarted': return { type: 'SpeechStarted', atMs, speechStartMs: atMs - 60 };
        case 'SpeechStopped': this.#speechEndMs = atMs - 240; return { type: 'SpeechStopped', atMs, speechEndMs: this.#speechEndMs };
        case 'TurnEnded': return { type: 'TurnEnded', atMs, speechStartMs: 0, speechEndMs: atMs - 800, reason: 'silence' };
        case 'BargeInDetected': return { type: 'BargeInDetected', atMs, speechStartMs: atMs - 200 };
      }
    });
  }
  async resolveBargeIn(verdict: string): Promise<AudioEvent[]> { this.verdicts.push(verdict); return []; }
  get state(): Readonly<CallAudioState> { throw new Error('not used'); }
  close(): void { this.closed = true; }
}

class ScriptedStt implements SttStream {
  constructor(private readonly delay: () => Promise<void>) {}
  #words: string[] = [];
  #listeners: Array<(r: TranscriptResult) => void> = [];
  said(text: string): void { this.#words.push(text); }
  interim(text: string): void { for (const l of this.#listeners) l({ text, final: false, startMs: 0, endMs: 0 }); }
  write(): void {}
  /** the turn is what was said until the call (a recogniser cuts it then), heard after the stage's delay */
  async finalize(): Promise<TranscriptResult> {
    const text = this.#words.splice(0).join(' ');
    await this.delay();
    return { text, final: true, startMs: 0, endMs: 0 };
  }
  onResult(l: (r: TranscriptResult) => void): void { this.#listeners.push(l); }
  close(): void {}
}

/** Streams the script's replies in order, one chunk per turn of the event loop; records requests and aborts. */
class ScriptedDialogFake implements DialogAdapter {
  requests: DialogTurnRequest[] = [];
  aborted = 0;
  #next = 0;
  constructor(private readonly replies: ScriptedReply[], private readonly delay: (first: boolean) => Promise<void>) {}
  turn(req: DialogTurnRequest, opts?: AdapterCallOptions): AsyncIterable<DialogEvent> {
    this.requests.push(req);
    const reply = this.replies[this.#next++] ?? { chunks: ['Okay.'] };
    const self = this;
    return (async function* () {
      for (const [i, c] of reply.chunks.entries()) {
        if (reply.stallAfter === i) await new Promise<void>((r) => opts?.signal?.addEventListener('abort', () => r()));
        await new Promise((r) => setImmediate(r));
        await self.delay(i === 0);
        if (opts?.signal?.aborted) { self.aborted++; throw new AdapterError('dialog', 'canceled', 'aborted'); }
        yield { type: 'text', text: c };
      }
      if (reply.ending) yield { type: reply.ending.kind, reason: reply.ending.reason };
    })();
  }
}

/** 20 ms of audio per character, so a sentence's length is known; `delay` before the first byte. */
const charTts = (delay: () => Promise<void>): TextToSpeechAdapter => ({
  async *synthesize(req) {
    await delay();
    yield new Int16Array(160 * req.text.length).fill(1000);
  },
});

function recordingOutputs() {
  const said: Array<{ speaker: 'caller' | 'agent'; text: string; truncated?: boolean }> = [];
  const escalations: string[] = [];
  const outputs: SessionOutputs = {
    callerSaid: (text) => { said.push({ speaker: 'caller', text }); },
    agentSaid: (text, _l, truncated) => { said.push({ speaker: 'agent', text, ...(truncated ? { truncated } : {}) }); },
    entity: () => {},
    tool: async (tool) => ({ type: tool, status: '200_ok' }),
    escalated: (reason) => { escalations.push(reason); },
  };
  return { outputs, said, escalations };
}

function nullSink(): RecordingSink {
  return { write: () => {}, finish: async () => 'memory' };
}
