/**
 * The imperative shell around the session machine (machine.ts): it turns carrier media, detector events,
 * transcripts, reply progress and API requests into machine inputs, and performs the actions the machine returns
 * (replies, playout, transcription, records). Every decision is the machine's; this file only wires and measures.
 */
import type { AudioEvent, CallAudioChannel } from '../audio/index.js';
import { FRAME_MS, mulawDecode } from '../audio/index.js';
import type { DialogTurnRequest, SpeechToTextAdapter, DialogAdapter, TextToSpeechAdapter, SttStream } from '../adapters/types.js';
import { AdapterError } from '../adapters/types.js';
import { finalizeNow } from '../adapters/finalize_now.js';
import type { Logger } from '../log.js';
import { Playout } from '../media/playout.js';
import type { MediaStream } from '../media/stream.js';
import { CallRecorder, type RecordingSink } from '../recordings/recorder.js';
import type { AgentSnapshot } from '../calls/types.js';
import { fillTemplate } from '../dialog/engine.js';
import type { SessionAction, SessionInput, SessionState, TurnTiming } from './events.js';
import { CallLedger } from './ledger.js';
import { createSessionState, step } from './machine.js';
import { heardText, runReply, type ReplyOutcome, type ReplySource } from './reply.js';
import type { SessionOutputs } from './outputs.js';
import { HOLD_SCRIPT } from '../handoffs/hold_script.js';
import { OperatorEar, OperatorMix } from '../handoffs/operator_mix.js';
import { mulawEncode } from '../audio/index.js';

/** An operator's audio on the call (src/handoffs/operator_leg.ts), as the session gives it. */
export interface OperatorAudioPort {
  /** one 20 ms PCM16 8 kHz frame of the operator's voice: to the caller (mixed with the agent's audio) and the recording; returns its recording position, ms */
  speak(pcm: Int16Array): number;
  /** the operator left the audio */
  leave(): void;
}

/** What a caller who pressed the opt-out key hears before the call ends. */
export const OPT_OUT_FAREWELL = "You won't be called again. Goodbye.";

export interface SessionConfig {
  callId: string; agent: AgentSnapshot; language: string; context: Record<string, string>; tools: string[];
  timeScale: number; adapterTimeoutMs: number;
  /** caller silence (media ms) after the agent finished before the agent checks in */
  noInputMs?: number;
  /** after an escalation, how long (media ms) the call waits for a transfer before ending */
  escalationHoldMs?: number;
  /** after an escalation, how long (media ms) the caller waits on hold for an operator; 0/absent: no hold */
  operatorHoldMs?: number;
  /** where the two-channel recording is written as the call runs */
  recording: RecordingSink;
  /** 'whole': the reply is synthesised once the model finished it (measures what sentence streaming saves) */
  replyMode?: 'streamed' | 'whole';
}

export interface SessionPorts {
  media: MediaStream;
  detector: CallAudioChannel;
  adapters: { stt: SpeechToTextAdapter; dialog: DialogAdapter; tts: TextToSpeechAdapter };
  out: SessionOutputs;
  /** paces the playout: calls each subscriber every few ms (the process's shared ticker; tests tick by hand) */
  ticker: { add(fn: () => void): () => void };
  log: Logger;
  /** presses keys on the line for the agent (the carrier's DTMF, else tones in the call audio) */
  sendDigits?(digits: string): void;
  /** the words of each agent sentence as its audio is made: the simulated carrier hands them to its callee */
  agentSaid?(text: string): void;
  /** performs a transfer to a human (the carrier's); the session has already stopped talking */
  transfer?(target: string): Promise<void>;
  /** the caller opted out (by key or by voice): their number goes on the do-not-disturb list */
  optOut?(source: 'keypad' | 'spoken'): void;
  /** nobody took the call's handoff in time (the caller is offered a call-back) */
  holdTimedOut?(): void;
  /** the caller accepted the call-back offered after an unanswered hold: schedule it */
  callbackAccepted?(text: string): void;
  /** wall clock, ms (tests drive it by hand) */
  clock?: () => number;
  /** told every input and what the machine decided (traces, tests) */
  onStep?(input: SessionInput, actions: readonly SessionAction[]): void;
}

interface LiveReply {
  id: number; controller: AbortController; outcome: ReplyOutcome; done: boolean; turn?: TurnTiming & { wall: TurnWall };
  firstFrameWall?: number; uninterruptible: boolean;
  /** the operator's words: already in the conversation and on the live stream as the operator's */
  operator?: boolean;
}
interface TurnWall { endedAt: number; transcribedAt?: number }

export class CallSession {
  readonly ledger = new CallLedger();
  readonly recorder: CallRecorder;
  readonly playout: Playout;
  readonly ended: Promise<string>;
  readonly state: SessionState;
  #end!: (reason: string) => void;
  #finished = false;
  #reply?: LiveReply;
  #stt: SttStream;
  /** transcripts are dispatched one at a time, in the order of their turns */
  #sttChain: Promise<unknown> = Promise.resolve();
  /** detector events are handled in order, one batch after the other */
  #turnWall?: TurnWall;
  #untick: () => void;
  /** recording slot (caller frame index) of the last frame sent to the caller (the agent's or an operator's) */
  #agentSlot = -1;
  /** an operator on the call's audio: hears the caller; their voice is mixed with the agent's */
  #operator?: { ear: (pcm: Int16Array, atMs: number) => void; mix: OperatorMix; hears: OperatorEar };
  /** the operator frame mixed into the agent frame being sent (recorded with it) */
  #mixed?: Int16Array;
  readonly #now: () => number;

  constructor(private readonly c: SessionConfig, private readonly p: SessionPorts) {
    this.#now = p.clock ?? (() => performance.now());
    this.ended = new Promise((r) => { this.#end = r; });
    this.recorder = new CallRecorder(c.recording);
    this.state = createSessionState({
      hasDisclosure: c.agent.disclosure_script.trim() !== '', noInputMs: c.noInputMs ?? 6000,
      escalationHoldMs: c.escalationHoldMs ?? 3000, voicemail: c.agent.voicemail === 'leave_message' ? 'leave_message' : 'hangup',
      keypad: c.agent.keypad, operatorHoldMs: c.operatorHoldMs ?? 0,
    });
    this.#stt = p.adapters.stt.open({ callId: c.callId, language: c.language, sampleRateHz: 8000 });
    this.#stt.onResult((r) => { if (!r.final && r.text) this.dispatch({ type: 'TranscriptInterim', text: r.text }); });
    // agent frames carry an operator's waiting voice, when one is on the audio
    const line = p.media;
    const sink = {
      sendMedia: (f: Uint8Array) => {
        this.#operator?.hears.agentSent(f);
        const m = this.#operator?.mix.mixInto(f);
        this.#mixed = m?.operator;
        line.sendMedia(m?.frame ?? f);
      },
      sendMark: (n: string) => line.sendMark(n), sendClear: () => line.sendClear(),
      ...(line.batch ? { batch: (send: () => void) => line.batch!(send) } : {}),
    };
    this.playout = new Playout(sink, {
      firstFrameSent: (id, at) => { if (this.#reply?.id === id) this.#reply.firstFrameWall = at; },
      // Recorded where the caller hears it: the carrier plays our frames first in, first out, each no earlier than
      // it arrives (the caller frame count now) and no earlier than the previous one ends.
      frameSent: (f) => {
        this.#agentSlot = Math.max(this.ledger.framesIn, this.#agentSlot + 1);
        this.recorder.agent(this.#agentSlot, mulawDecode(f));
        if (this.#mixed) { this.recorder.operator(this.#agentSlot, this.#mixed); this.#mixed = undefined; }
      },
      drained: () => { if (this.#reply) this.dispatch({ type: 'PlayoutDrained', replyId: this.#reply.id }); },
    }, { timeScale: c.timeScale, clock: this.#now });
    this.#untick = p.ticker.add(() => this.playout.pump());
    p.media.attach({
      audio: (pcm) => this.#onAudio(pcm), mark: (n) => this.playout.onMark(n), dtmf: (digit) => this.dispatch({ type: 'KeyPressed', digit }),
      ended: (why) => this.dispatch({ type: 'MediaEnded', reason: why }),
    });
  }

  /** The call was answered: the agent opens it (disclosure first). */
  start(): void { this.dispatch({ type: 'CallAnswered' }); }
  hangup(reason: string): void { this.dispatch({ type: 'HangupRequested', reason }); }

  /** The agent stops and the call goes to `target`: true once bridged, false if the call was already over. */
  transfer(target: string): Promise<boolean> {
    if (this.#finished || this.state.phase === 'transferring') return Promise.resolve(false);
    return new Promise((resolve, reject) => {
      this.#transferring = { resolve, reject };
      this.dispatch({ type: 'TransferRequested', target });
    });
  }
  #transferring?: { resolve(done: boolean): void; reject(err: unknown): void };
  /** an operator accepted the call's handoff: the agent stops speaking */
  operatorJoined(): void { this.dispatch({ type: 'OperatorJoined' }); }
  /** the operator hands the call back to the agent, or ends it */
  operatorLeft(then: 'agent' | 'end'): void { this.dispatch({ type: 'OperatorLeft', then }); }
  /** the operator's message, spoken to the caller in the agent's voice (until the operator's own audio joins) */
  operatorSpoke(text: string): void { this.dispatch({ type: 'OperatorSpoke', text }); }
  /** a transfer to a person with nobody to dial: the caller waits on hold in the handoff queue */
  holdForOperator(): void { this.dispatch({ type: 'HoldRequested' }); }
  /**
   * An operator joins the call's audio: `ear` gets each caller frame (and its media time), with the agent's own audio
   * mixed in (a typed reply being spoken); the port sends the
   * operator's voice. One operator at a time: a second join replaces the first's ear.
   */
  operatorAudio(ear: (pcm: Int16Array, atMs: number) => void): OperatorAudioPort {
    const op = { ear, mix: new OperatorMix(), hears: new OperatorEar() };
    this.#operator = op;
    return {
      speak: (pcm) => {
        if (this.#finished || this.#operator !== op) return -1;
        let at = -1;
        for (const frame of op.mix.arrive(pcm, this.playout.sending)) {
          // played after whatever the caller's line holds, as agent frames are
          this.#agentSlot = Math.max(this.ledger.framesIn, this.#agentSlot + 1);
          this.recorder.operator(this.#agentSlot, frame);
          this.p.media.sendMedia(mulawEncode(frame));
          at = this.#agentSlot * FRAME_MS;
        }
        return at < 0 ? Math.max(this.ledger.framesIn, this.#agentSlot + 1) * FRAME_MS : at;
      },
      leave: () => { if (this.#operator === op) this.#operator = undefined; },
    };
  }

  /** an operator has the call now */
  get withOperator(): boolean { return !!this.state.withOperator; }
  /** answering-machine detection said a machine answered */
  machineDetected(beepDone: boolean): void { this.dispatch({ type: 'MachineDetected', beepDone }); }

  /** Feeds one input to the machine and performs what it decides. */
  dispatch(input: SessionInput): void {
    if (this.#finished) return;
    const actions = step(this.state, input);
    this.p.onStep?.(input, actions);
    for (const a of actions) this.#perform(a);
  }

  #onAudio(pcm: Int16Array): void {
    if (this.#finished) return;
    const atMs = this.ledger.framesIn * FRAME_MS;
    this.ledger.framesIn++;
    this.recorder.caller(pcm);
    if (this.#operator) this.#operator.ear(this.#operator.hears.heard(pcm), atMs);
    this.#stt.write(pcm, atMs);
    this.p.detector.pushPcm(pcm, this.playout.speaking()).then((evs) => this.#onDetector(evs), () => {});
    this.dispatch({ type: 'MediaAdvanced', mediaMs: atMs + FRAME_MS });
  }

  #onDetector(evs: AudioEvent[]): void {
    for (const e of evs) {
      switch (e.type) {
        case 'SpeechStarted':
          this.#stt.speechStarted?.(e.atMs);
          this.dispatch({ type: 'SpeechStarted', atMs: e.atMs });
          break;
        case 'SpeechStopped':
          this.#stt.speechStopped?.(e.atMs, e.speechEndMs);
          this.dispatch({ type: 'SpeechStopped', atMs: e.atMs, speechEndMs: e.speechEndMs });
          break;
        case 'TurnEnded':
          this.#turnWall = { endedAt: this.#now() };
          this.dispatch({ type: 'TurnEnded', atMs: e.atMs, speechEndMs: e.speechEndMs });
          break;
        case 'BargeInDetected':
          this.dispatch({ type: 'BargeInDetected', atMs: e.atMs, protectedAudio: this.#reply?.uninterruptible ?? false });
          break;
        case 'InterruptionRecovered': if (e.reason === 'short_speech') this.dispatch({ type: 'InterruptionRecovered', atMs: e.atMs }); break;
        case 'BargeInConfirmed': break; // the session decided it (ResolveBargeIn)
      }
    }
  }

  #perform(a: SessionAction): void {
    switch (a.type) {
      case 'StartReply': this.#startReply(a); break;
      case 'CutReply': this.#cutReply(a.replyId); break;
      case 'CompleteReply': this.#completeReply(a.replyId); break;
      case 'PausePlayout': this.playout.pause(); break;
      case 'ResumePlayout':
        this.playout.resume();
        if (this.#reply && !this.playout.speaking()) this.dispatch({ type: 'PlayoutDrained', replyId: this.#reply.id });
        break;
      case 'FinalizeTranscript': this.#finalize(a.purpose, a.turn); break;
      case 'ResolveBargeIn': this.p.detector.resolveBargeIn(a.verdict).then((evs) => this.#onDetector(evs), () => {}); break;
      case 'RecordCallerTurn': {
        this.ledger.history.push({ role: 'caller', text: a.text });
        const w = this.#turnWall;
        this.p.out.callerSaid(a.text, w?.transcribedAt !== undefined ? w.transcribedAt - w.endedAt : 0);
        break;
      }
      case 'RecordBackchannel': this.ledger.backchannels++; break;
      case 'RecordInterruption': this.ledger.interruptions++; break;
      case 'DisclosureDelivered': this.ledger.disclosureDeliveredAt = new Date(); break;
      case 'Escalate': this.ledger.humanEscalation = true; this.p.out.escalated(a.reason); break;
      case 'Transfer': this.#transfer(a.target); break;
      case 'OptOut': this.p.optOut?.(a.source); break;
      case 'HoldTimedOut': this.p.holdTimedOut?.(); break;
      case 'CallbackAccepted': this.p.callbackAccepted?.(a.text); break;
      case 'EndCall': this.#finish(a.reason); break;
    }
  }

  #startReply(a: Extract<SessionAction, { type: 'StartReply' }>): void {
    const vars = { ...this.c.context };
    const disclosure = a.kind === 'disclosure';
    let source: ReplySource;
    if (disclosure) source = { text: fillTemplate(this.c.agent.disclosure_script, vars) };
    else if (a.kind === 'voicemail') source = { text: fillTemplate(this.c.agent.voicemail_message ?? this.c.agent.disclosure_script, vars) };
    else if (a.kind === 'farewell') source = { text: OPT_OUT_FAREWELL };
    else if (HOLD_SCRIPT[a.kind]) source = { text: HOLD_SCRIPT[a.kind]! };
    else if (a.kind === 'operator') source = { text: a.callerText };
    else source = { dialog: this.#turnRequest(a.callerText, a.unheard === true) };
    // the hold message plays whole: words over it are recorded for the operator, never a barge-in the agent answers
    const r: LiveReply = { id: a.replyId, controller: new AbortController(), outcome: { spoken: [], aborted: false }, done: false, uninterruptible: disclosure || a.kind === 'hold' || a.kind === 'operator',
      operator: a.kind === 'operator',
      turn: a.turn && this.#turnWall ? { ...a.turn, wall: this.#turnWall } : undefined };
    this.#reply = r;
    this.playout.beginReply();
    const dialogStart = this.#now();
    let audible = false;
    const dialog = a.sttFailure !== undefined ? failingDialog(a.sttFailure) : this.p.adapters.dialog;
    void runReply({
      dialog, tts: this.p.adapters.tts, voice: this.c.agent.voice, language: this.c.language, now: this.#now, wholeReply: this.c.replyMode === 'whole',
      enqueue: (frames) => {
        this.playout.enqueue(frames);
        if (!audible) { audible = true; this.dispatch({ type: 'ReplyAudible', replyId: r.id }); }
        this.playout.pump();
      },
      entity: (k, v) => { this.ledger.extracted[k] = v; this.p.out.entity(k, v); },
      tool: (tool, args) => this.p.out.tool(tool, args),
      listen: (hint) => this.#stt.expect?.(hint),
      keys: (digits) => this.p.sendDigits?.(digits),
      said: this.p.agentSaid,
    }, source, r.controller.signal, r.outcome).then((o) => {
      r.done = true;
      if (o.fallback) this.ledger.fallbacks++;
      if (r.turn && o.firstAudioAt !== undefined) this.#whenFirstFrame(r, () => this.#recordLatency(r, dialogStart));
      if (this.#reply !== r) return;
      this.dispatch({ type: 'ReplyGenerated', replyId: r.id, ending: o.ending });
      if (this.#reply === r && !this.playout.speaking() && !this.playout.paused) this.dispatch({ type: 'PlayoutDrained', replyId: r.id });
    });
  }

  #turnRequest(callerText: string, unheard: boolean): DialogTurnRequest {
    return {
      callId: this.c.callId, context: this.c.context, tools: this.c.tools, history: [...this.ledger.history], callerText,
      ...(unheard ? { unheard } : {}),
      extracted: { ...this.ledger.extracted }, now: new Date().toISOString(),
      agent: { role: this.c.agent.role, language: this.c.language, disclosure_script: this.c.agent.disclosure_script, qualify_script: this.c.agent.qualify_script,
        ...(this.c.agent.qualify_text ? { qualify_text: this.c.agent.qualify_text } : {}),
        ...(this.c.agent.knowledge?.length ? { knowledge: this.c.agent.knowledge } : {}) },
    };
  }

  /** The first frame leaves on a later tick than the first audio is queued: measure once it has. */
  #whenFirstFrame(r: LiveReply, fn: () => void): void {
    if (r.firstFrameWall !== undefined) { fn(); return; }
    const off = this.p.ticker.add(() => { if (r.firstFrameWall !== undefined || this.#finished) { off(); if (r.firstFrameWall !== undefined) fn(); } });
  }

  #recordLatency(r: LiveReply, dialogStart: number): void {
    const t = r.turn!; const o = r.outcome;
    const r2 = (v: number) => Math.round(v * 100) / 100;
    const transcribed = t.wall.transcribedAt ?? dialogStart;
    const firstText = o.firstTextAt ?? o.firstAudioAt!;
    const firstSentence = o.firstSentenceAt ?? firstText;
    const endpointingMs = t.endedAtMs - t.speechEndMs;
    this.ledger.turns.push({
      total_ms: r2(endpointingMs + r.firstFrameWall! - t.wall.endedAt), endpointing_ms: endpointingMs,
      stt_ms: r2(transcribed - t.wall.endedAt), dialog_ms: r2(firstText - transcribed), sentence_ms: r2(firstSentence - firstText),
      tts_ms: r2(o.firstAudioAt! - firstSentence), send_ms: r2(r.firstFrameWall! - o.firstAudioAt!), speech_end_ms: t.speechEndMs,
    });
  }

  #cutReply(id: number): void {
    const r = this.#reply;
    if (!r || r.id !== id) return;
    this.#reply = undefined;
    r.controller.abort();
    const { playedMs } = this.playout.clear();
    this.recorder.dropAgentFrom(this.ledger.framesIn);
    this.#agentSlot = this.ledger.framesIn - 1; // the carrier dropped its buffer
    if (!r.operator) this.#recordAgent(heardText(r.outcome.spoken, playedMs), true);
  }

  #completeReply(id: number): void {
    const r = this.#reply;
    if (!r || r.id !== id) return;
    this.#reply = undefined;
    if (!r.operator) this.#recordAgent(r.outcome.spoken.map((s) => s.text).join(' '), false);
  }

  #recordAgent(text: string, truncated: boolean): void {
    if (!text) return;
    this.ledger.history.push({ role: 'agent', text });
    this.p.out.agentSaid(text, this.ledger.turns.at(-1)?.total_ms ?? 0, truncated);
  }

  #finalize(purpose: 'turn' | 'barge_in', turn?: TurnTiming): void {
    const wall = this.#turnWall;
    const heard = finalizeNow(this.#stt, this.c.adapterTimeoutMs); // cut now, dispatched after the turns before
    this.#sttChain = this.#sttChain.then(async () => {
      try {
        const { text, unheard } = await heard();
        if (purpose === 'turn' && wall) wall.transcribedAt = this.#now();
        this.dispatch({ type: 'TranscriptFinal', purpose, text, turn, ...(unheard && !text ? { unheard } : {}) });
      } catch (error) {
        if (purpose === 'turn' && wall) wall.transcribedAt = this.#now();
        this.p.log.warn({ err: error, purpose }, 'speech-to-text finalize failed');
        const timedOut = error instanceof AdapterError && error.code === 'timeout';
        this.dispatch({ type: 'TranscriptFailed', purpose, turn, error, timedOut });
      }
    });
  }

  #transfer(target: string): void {
    const waiting = this.#transferring;
    this.#transferring = undefined;
    (this.p.transfer?.(target) ?? Promise.resolve()).then(() => {
      this.dispatch({ type: 'TransferCompleted' });
      waiting?.resolve(true);
    }, (err: unknown) => {
      this.p.log.warn({ err }, 'transfer failed');
      this.dispatch({ type: 'TransferFailed', reason: err instanceof Error ? err.message : String(err) });
      waiting?.reject(err);
    });
  }

  #finish(reason: string): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#transferring?.resolve(false);
    this.#reply?.controller.abort();
    this.#untick();
    this.p.detector.close();
    this.#stt.close();
    this.ledger.framesOut = this.playout.framesOut;
    this.p.media.close();
    this.#end(reason);
  }
}

/**
 * Speech-to-text failed before the dialog could run: the reply stage turns this into the spoken fallback, keeping
 * the STT's error code (a timeout stays 'timeout'); never 'canceled', which would mean silence instead.
 */
const failingDialog = (err: unknown): DialogAdapter => ({
  // eslint-disable-next-line require-yield
  async *turn() {
    const code = err instanceof AdapterError && err.code !== 'canceled' ? err.code : 'failed';
    throw new AdapterError('stt', code, err instanceof Error ? err.message : 'speech-to-text failed');
  },
});
