/**
 * One live call on this instance, wiring only: carrier stream -> audio channel (detector) -> turn stages ->
 * reply stage (dialog, TTS) -> paced playout -> carrier. Decisions come from the audio core (media time);
 * replies from src/calls/reply.ts; what the call produced accumulates in the ledger and the recorder.
 */
import type { AudioEvent, CallAudioChannel } from '../audio/index.js';
import { isBackchannel, mulawDecode } from '../audio/index.js';
import { AdapterError } from '../adapters/types.js';
import type { AdapterSet, DialogAdapter, DialogTurnRequest, SttStream } from '../adapters/types.js';
import type { Logger } from '../log.js';
import type { TwilioStream } from '../media/twilio_edge.js';
import { Playout } from '../media/playout.js';
import type { Ticker } from '../media/ticker.js';
import { CallRecorder, type RecordingSink } from '../recordings/recorder.js';
import { CallLedger } from './ledger.js';
import { heardText, runReply, type ReplyOutcome } from './reply.js';
import type { AgentSnapshot } from './types.js';
import type { SessionOutputs } from './session_outputs.js';

export interface SessionConfig {
  callId: string; agent: AgentSnapshot; language: string; context: Record<string, string>; tools: string[];
  timeScale: number; adapterTimeoutMs: number;
  /** caller silence (media ms) after the agent finished before the agent checks in */
  noInputMs?: number;
  /** after an escalation, how long (media ms) the call waits for a transfer before ending */
  escalationHoldMs?: number;
  /** where the two-channel recording is written as the call runs */
  recording: RecordingSink;
}

interface ActiveReply {
  id: number; controller: AbortController; outcome?: ReplyOutcome; done: boolean;
  turn?: { endpointingMs: number; sttMs: number; turnEndWall: number; speechEndMs: number };
  firstFrameWall?: number; finalized: boolean;
}

export class CallSession {
  readonly ledger = new CallLedger();
  readonly recorder: CallRecorder;
  readonly playout: Playout;
  readonly ended: Promise<string>;
  #end!: (reason: string) => void;
  #finished = false;
  #reply?: ActiveReply;
  #events: Promise<void> = Promise.resolve();
  #stt: SttStream;
  #mediaMs = 0;
  #lastActivityMs = 0;
  #callerInTurn = false;
  #bargePending = false;
  #carryText = '';
  #endAtMs?: number;
  #endReason = '';
  #untick: () => void;
  private readonly out: SessionOutputs;
  /** recording slot (caller frame index) of the last agent frame sent */
  #agentSlot = -1;

  constructor(private readonly c: SessionConfig, private readonly stream: TwilioStream, private readonly channel: CallAudioChannel,
    private readonly adapters: AdapterSet, out: SessionOutputs, ticker: Ticker, private readonly log: Logger) {
    this.ended = new Promise((r) => { this.#end = r; });
    this.recorder = new CallRecorder(c.recording);
    this.out = deferred(out);
    this.#stt = adapters.stt.open({ callId: c.callId, language: c.language, sampleRateHz: 8000 });
    this.playout = new Playout(stream, {
      firstFrameSent: (id, at) => { if (this.#reply?.id === id) this.#reply.firstFrameWall = at; },
      // Recorded where the caller hears it: the carrier plays our frames first in, first out, each no earlier than
      // it arrives (≈ the caller frame count now) and no earlier than the previous one ends. (framesIn + the
      // playhead's lead mixed two unaligned clocks: frames collided or left holes, a garbled agent channel.)
      frameSent: (f) => {
        this.#agentSlot = Math.max(this.ledger.framesIn, this.#agentSlot + 1);
        this.recorder.agent(this.#agentSlot, f);
      },
      drained: () => this.#onDrained(),
    }, { timeScale: c.timeScale });
    this.#untick = ticker.add(() => this.playout.pump());
    stream.attach({
      media: (f) => this.#onMedia(f), mark: (n) => this.playout.onMark(n), dtmf: () => {},
      ended: (why) => this.finish(why === 'stop' ? 'caller_hangup' : 'media_closed'),
    });
  }

  /** The agent opens the call (disclosure first). */
  start(): void { this.#startReply('', undefined); }

  #onMedia(frame: Uint8Array): void {
    if (this.#finished) return;
    this.ledger.framesIn++;
    this.#mediaMs += 20;
    this.recorder.caller(frame);
    this.#stt.write(mulawDecode(frame), this.#mediaMs - 20);
    const speaking = this.playout.speaking();
    this.channel.pushMulaw(frame, speaking).then((evs) => {
      if (evs.length) this.#events = this.#events.then(() => this.#handle(evs)).catch((err) => this.log.warn({ err }, 'session event failed'));
    }, () => {});
    if (this.#endAtMs !== undefined && this.#mediaMs >= this.#endAtMs) { this.finish(this.#endReason); return; }
    const idle = !this.#reply && !this.#callerInTurn && !this.playout.speaking();
    if (idle && this.#endAtMs === undefined && this.#mediaMs - this.#lastActivityMs >= (this.c.noInputMs ?? 6000)) {
      this.#lastActivityMs = this.#mediaMs;
      this.#startReply('', undefined); // "Are you still there?"
    }
  }

  async #handle(evs: AudioEvent[]): Promise<void> {
    for (const e of evs) {
      if (this.#finished) return;
      switch (e.type) {
        case 'SpeechStarted': this.#callerInTurn = true; this.#lastActivityMs = this.#mediaMs; break;
        case 'BargeInDetected': this.#bargePending = true; this.#cutReply(); break;
        case 'SpeechStopped':
          if (this.#bargePending) {
            const text = await this.#finalizeStt();
            const more = await this.channel.resolveBargeIn(text);
            if (more.some((m) => m.type === 'BargeInConfirmed')) this.#carryText = text;
            await this.#handle(more);
          }
          break;
        case 'BargeInConfirmed': this.#bargePending = false; this.ledger.interruptions++; break;
        case 'InterruptionRecovered':
          this.#bargePending = false; this.#callerInTurn = false; this.ledger.backchannels++;
          await this.#finalizeStt();
          this.#resumeAfterBackchannel();
          break;
        case 'TurnEnded': await this.#onTurnEnded(e); break;
      }
    }
  }

  async #finalizeStt(): Promise<string> {
    try { return (await this.#stt.finalize({ timeoutMs: this.c.adapterTimeoutMs })).text; } catch (err) {
      this.log.warn({ err }, 'stt finalize failed');
      return '';
    }
  }

  async #onTurnEnded(e: Extract<AudioEvent, { type: 'TurnEnded' }>): Promise<void> {
    const turnEndWall = performance.now();
    this.#callerInTurn = false;
    this.#lastActivityMs = this.#mediaMs;
    let text: string;
    try { text = (await this.#stt.finalize({ timeoutMs: this.c.adapterTimeoutMs })).text; } catch (err) {
      this.log.warn({ err }, 'stt failed: spoken fallback');
      this.#startReply('', { endpointingMs: e.atMs - e.speechEndMs, sttMs: performance.now() - turnEndWall, turnEndWall, speechEndMs: e.speechEndMs }, err);
      return;
    }
    text = `${this.#carryText} ${text}`.trim();
    this.#carryText = '';
    if (!text) return; // noise, no words: not a turn
    // "okay" said over the agent, too short to count as a barge-in: an acknowledgement, not a turn to answer
    if (this.#reply && !this.#reply.finalized && isBackchannel(text)) { this.ledger.backchannels++; return; }
    const sttMs = performance.now() - turnEndWall;
    this.ledger.history.push({ role: 'caller', text });
    this.out.callerSaid(text, sttMs);
    this.#startReply(text, { endpointingMs: e.atMs - e.speechEndMs, sttMs, turnEndWall, speechEndMs: e.speechEndMs });
  }

  #startReply(callerText: string, turn: ActiveReply['turn'], sttError?: unknown, dialogOverride?: DialogAdapter): void {
    if (this.#finished || this.#endAtMs !== undefined) return;
    if (this.#reply) this.#cutReply();
    const id = this.playout.beginReply();
    const r: ActiveReply = { id, controller: new AbortController(), done: false, turn, finalized: false };
    this.#reply = r;
    const req: DialogTurnRequest = {
      callId: this.c.callId, context: this.c.context, tools: this.c.tools, history: [...this.ledger.history], callerText,
      extracted: { ...this.ledger.extracted }, now: new Date().toISOString(),
      agent: { role: this.c.agent.role, language: this.c.language, disclosure_script: this.c.agent.disclosure_script, qualify_script: this.c.agent.qualify_script },
    };
    const dialog = dialogOverride ?? (sttError !== undefined ? failingDialog(sttError) : this.adapters.dialog);
    const dialogStart = performance.now();
    void runReply({
      dialog, tts: this.adapters.tts, voice: this.c.agent.voice, language: this.c.language,
      enqueue: (frames) => { this.playout.enqueue(frames); this.playout.pump(); },
      entity: (k, v) => { this.ledger.extracted[k] = v; this.out.entity(k, v); },
      tool: (tool, args) => this.out.tool(tool, args),
    }, req, r.controller.signal).then((o) => {
      r.outcome = o; r.done = true;
      if (o.fallback) this.ledger.fallbacks++;
      if (r.turn && r.firstFrameWall !== undefined && o.firstAudioAt !== undefined) this.#recordLatency(r, dialogStart);
      if (!this.playout.speaking()) this.#onDrained();
    });
  }

  #recordLatency(r: ActiveReply, dialogStart: number): void {
    const t = r.turn!; const o = r.outcome!;
    const firstText = o.firstTextAt ?? o.firstAudioAt!;
    const pipelineMs = r.firstFrameWall! - t.turnEndWall;
    const r1 = (v: number) => Math.round(v * 100) / 100;
    this.ledger.turns.push({
      total_ms: r1(t.endpointingMs + pipelineMs), endpointing_ms: t.endpointingMs, stt_ms: r1(t.sttMs),
      dialog_ms: r1(firstText - dialogStart), tts_ms: r1(o.firstAudioAt! - firstText), speech_end_ms: t.speechEndMs,
    });
  }

  /** Barge-in or a newer turn: stop generating, drop unplayed audio, keep only what the caller heard. */
  #cutReply(): void {
    const r = this.#reply;
    const { playedMs } = this.playout.clear();
    this.recorder.dropAgentFrom(this.ledger.framesIn);
    this.#agentSlot = this.ledger.framesIn - 1; // the carrier dropped its buffer
    if (!r || r.finalized) return;
    r.controller.abort();
    this.#finalizeReply(r, playedMs);
  }

  #resumeAfterBackchannel(): void {
    const r = this.#lastCut;
    this.#lastCut = undefined;
    if (!r?.outcome || this.#reply) return;
    const rest = r.outcome.spoken.filter((s) => s.startMs >= r.heardMs).map((s) => s.text).join(' ');
    if (rest) this.#startReplyWith(rest, r.outcome.ending);
  }
  #lastCut?: { outcome?: ReplyOutcome; heardMs: number };

  #startReplyWith(text: string, ending: ReplyOutcome['ending']): void {
    // the rest of the cut reply, spoken again without asking the dialog model
    const scripted: DialogAdapter = {
      async *turn() { yield { type: 'text', text }; if (ending) yield { type: ending.kind, reason: ending.reason }; },
    };
    this.#startReply('', undefined, undefined, scripted);
  }

  #onDrained(): void {
    const r = this.#reply;
    if (!r || !r.done || r.finalized || this.playout.speaking()) return;
    this.#finalizeReply(r, Number.POSITIVE_INFINITY);
  }

  #finalizeReply(r: ActiveReply, playedMs: number): void {
    r.finalized = true;
    if (this.#reply === r) this.#reply = undefined;
    this.#lastActivityMs = this.#mediaMs;
    const spoken = r.outcome?.spoken ?? [];
    const cut = Number.isFinite(playedMs);
    if (cut) this.#lastCut = { outcome: r.outcome, heardMs: playedMs };
    const text = cut ? heardText(spoken, playedMs) : spoken.map((s) => s.text).join(' ');
    const latency = this.ledger.turns.at(-1)?.total_ms ?? 0;
    if (text) { this.ledger.history.push({ role: 'agent', text }); this.out.agentSaid(text, latency, cut); }
    const ending = r.outcome?.ending;
    if (!ending || cut) return;
    if (ending.kind === 'end_call') { this.finish(ending.reason === 'completed' ? 'completed' : ending.reason); return; }
    this.ledger.humanEscalation = true;
    this.out.escalated(ending.reason);
    this.#endReason = ending.reason.startsWith('adapter_failure') ? 'adapter_failure' : 'escalated';
    this.#endAtMs = this.#mediaMs + (this.c.escalationHoldMs ?? 3000);
  }

  /** A transfer to a human: the agent stops at once and the AI leg ends. */
  transferred(): void { this.#cutReply(); this.finish('transferred'); }

  finish(reason: string): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#reply?.controller.abort();
    this.#untick();
    this.channel.close();
    this.#stt.close();
    this.ledger.framesOut = this.playout.framesOut;
    this.stream.close();
    this.#end(reason);
  }
}

/**
 * Live items and stored messages leave after the turn's critical path, in order (setImmediate is FIFO): each one
 * starts a store write, and with the embedded PGlite that write runs on this thread inside the microtask chain
 * from turn end to first agent frame (the caller's transcript just before the dialog, entities between dialog
 * events), which put milliseconds of SQL into every turn's latency. Tool calls stay inline: the reply waits on them.
 */
function deferred(out: SessionOutputs): SessionOutputs {
  return {
    callerSaid: (text, latencyMs) => { setImmediate(() => out.callerSaid(text, latencyMs)); },
    agentSaid: (text, latencyMs, truncated) => { setImmediate(() => out.agentSaid(text, latencyMs, truncated)); },
    entity: (key, value) => { setImmediate(() => out.entity(key, value)); },
    escalated: (reason) => { setImmediate(() => out.escalated(reason)); },
    tool: (tool, args) => out.tool(tool, args),
  };
}

/**
 * STT failed before the dialog could run: the reply stage turns this into the spoken fallback, keeping the
 * STT's error code (a timeout stays 'timeout'); never 'canceled', which would mean silence instead of the fallback.
 */
const failingDialog = (err: unknown): DialogAdapter => ({
  // eslint-disable-next-line require-yield
  async *turn() {
    const code = err instanceof AdapterError && err.code !== 'canceled' ? err.code : 'failed';
    throw new AdapterError('stt', code, err instanceof Error ? err.message : 'speech-to-text failed');
  },
});
