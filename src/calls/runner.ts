/**
 * Drives each call on this instance: dialing -> carrier outcome -> (simulated callee line) -> media session ->
 * final status; a call that came in starts answered, at the wait for its media. Key presses and tones: the
 * session's keypad, the caller's opt-out onto do-not-disturb, the agent's tones toward the call. The end is one transaction: status + its status item (the stored transition) +
 * webhook outbox row, after the outcome (metrics, extracted data, actions, recording) is stored; then the status
 * item is announced and onCallEnded told.
 */
import { scheduleCallback } from '../leads/callback.js';
import { summaryOf, writeSummary } from '../dialog/summary.js';
import { sleep } from '../adapters/deadline.js';
import type { AdapterSet, CarrierCallEvent, PlaceCallResult, TransferMode } from '../adapters/types.js';
import type { CallLedger } from '../session/ledger.js';
import { TRANSFER_SUMMARY_CHARS } from '../stream/protocol.js';
import { dtmfFrames } from '../carriers/dtmf.js';
import { addToDnd } from '../leads/dnd_repo.js';
import type { AudioPool } from '../audio/index.js';
import type { Db, Queryable } from '../db/db.js';
import { outageBufferOf } from '../db/outage.js';
import type { Logger } from '../log.js';
import type { MediaStream } from '../media/stream.js';
import { STREAM_TOKEN_PARAMETER } from '../carriers/contract.js';
import type { Ticker } from '../media/ticker.js';
import type { RecordingStore } from '../recordings/store.js';
import { ConversationRepo } from '../repos/conversations.js';
import { callKey } from '../stream/sink.js';
import type { CallEventSink } from '../stream/types.js';
import type { ToolRunner } from '../tools/types.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { callCompletedPayload } from '../webhooks/payload.js';
import { transition } from './lifecycle.js';
import { lastActivityAt, setDurationUntil, toRecord, type CallRow } from './repo.js';
import type { CallRunnerPort, CallService } from './service.js';
import { CallSession } from '../session/shell.js';
import { deferred, sessionOutputs } from '../session/outputs.js';
import type { CallStatus } from './types.js';
import { DEFAULT_HANDOFF_SETTINGS, getHandoffSettings, type HandoffSettings } from '../handoffs/settings.js';
import { joinOperatorLeg, type OperatorLeg } from '../handoffs/operator_leg.js';
import type { OperatorAudioTicket } from '../handoffs/call_control.js';
import { closeHandoffOfEndedCall, closeUnansweredHandoff, handoffTimes, scheduleCallback as scheduleHoldCallback } from '../handoffs/call_hold.js';

export interface RunnerDeps {
  db: Db; log: Logger; adapters: AdapterSet; tools: ToolRunner; pool: AudioPool; events: CallEventSink; calls: CallService;
  outbox: WebhookOutbox; onEnqueued: () => void; store: RecordingStore; ticker: Ticker; recordingUrl: (id: string) => string;
  mediaUrl: () => string; timeScale: number; adapterTimeoutMs: number; replyMode?: 'streamed' | 'whole';
  /** the longest wait for a model's post-call summary (SUMMARY_TIMEOUT_MS) */
  summaryTimeoutMs?: number;
  /** the call's single-use media capability, sent to the carrier as a stream parameter (src/auth/call_capability.ts) */
  streamToken: (callId: string) => string;
  /** an operator's ticket to a call's audio: this instance's operator socket and a single-use capability for the call */
  operatorTicket?: (callId: string) => OperatorAudioTicket;
  /** where a transfer to 'operator' is dialed when the agent names no number of its own (E.164); none = the handoff queue only */
  humanTransferNumber?: string;
  /** ring timeout of placeCall (ms) and the wait for the media stream after an answer (ms) */
  ringTimeoutMs?: number; mediaWaitMs?: number;
  /** the simulated carrier's side channel: a call's agent sentence, told to its simulated callee */
  agentSaid?: (callId: string, text: string) => void;
}

interface LiveCall {
  row: CallRow; dial: AbortController; session?: CallSession; stream?: (s: MediaStream) => void; endReason?: string;
  /** the media stream once attached (the agent's tones go to it) */
  media?: MediaStream;
  /** the carrier's latest word on the call, kept on it when it ends */
  carrierStatus?: string;
  /** a machine answered (answering-machine detection), before or after the session started */
  machine?: { beepDone: boolean };
  /** status moves the carrier's news asks for, in order */
  moves: Promise<unknown>;
  /** writes the call's end waits for (a call-back being scheduled) */
  pending?: Promise<unknown>[];
  /** the tenant's hold time for this call (s; 0: no hold) */
  holdSeconds?: number;
  /** the operator (user id) who took the call from the handoff queue */
  operator?: string;
  /** that operator's audio leg, while joined (src/handoffs/operator_leg.ts) */
  operatorLeg?: OperatorLeg;
  /** how the next transfer is asked for (the API's mode and summary); unset: the agent's transfer_mode */
  transferAsk?: TransferAsk;
  /** the number the call was transferred to, and how the carrier did it */
  transferred?: { target: string; mode: TransferMode };
}

/** How a transfer to a number is made: mode (default the agent's transfer_mode) and, warm, the words the human hears first. */
export interface TransferAsk { mode?: TransferMode; summary?: string }

/** The longest summary a transfer leg hears (characters, as the API allows); a longer one is cut at a sentence or word. */
const TRANSFER_SUMMARY_MAX = TRANSFER_SUMMARY_CHARS;

const CARRIER_END: Record<string, CallStatus> = { no_answer: 'no_answer', busy: 'busy', failed: 'failed' };

export class CallRunner implements CallRunnerPort {
  readonly live = new Map<string, LiveCall>();
  readonly #running = new Set<Promise<void>>();
  constructor(private readonly d: RunnerDeps) {}

  start(row: CallRow): void {
    const p = this.#run(row).catch((err) => this.d.log.error({ err, call_id: row.id }, 'call runner failed'))
      .finally(() => { this.live.delete(row.id); this.#running.delete(p); });
    this.#running.add(p);
  }

  /**
   * A call that came in (CallService.acceptInbound stored it ringing): answered now, it waits for its media and
   * runs as any answered call. Returns where the carrier's news goes, and how to tell the carrier's id of the call
   * once it is known (the simulator's comes after).
   */
  startInbound(row: CallRow): { onEvent(e: CarrierCallEvent): void; carrierCallId(id: string): void } {
    const l: LiveCall = { row, dial: new AbortController(), moves: Promise.resolve() };
    this.live.set(row.id, l);
    const streamP = new Promise<MediaStream>((resolve) => { l.stream = resolve; });
    const p = (async () => {
      if (!(await this.#move(row, 'ringing', 'in_progress', 'answered', row.carrier_call_id ? { carrierCallId: row.carrier_call_id } : {}))) return;
      await this.#converse(l, streamP, false);
    })().catch((err) => this.d.log.error({ err, call_id: row.id }, 'call runner failed'))
      .finally(() => { this.live.delete(row.id); this.#running.delete(p); });
    this.#running.add(p);
    return { onEvent: (e) => this.#carrierNews(l, e), carrierCallId: (id) => { row.carrier_call_id ??= id; } };
  }

  /** What the carrier sends back when the stream starts (Twilio <Parameter>s): the call, and its media capability. */
  streamParameters(row: Pick<CallRow, 'id' | 'tenant_id'>): Record<string, string> {
    return { call_id: row.id, tenant_id: row.tenant_id, [STREAM_TOKEN_PARAMETER]: this.d.streamToken(row.id) };
  }

  /** The media edge found a stream for call_id: true if this instance runs that call and was waiting for it. */
  attachStream(callId: string, stream: MediaStream): boolean {
    const l = this.live.get(callId);
    if (!l?.stream) return false;
    l.stream(stream);
    l.stream = undefined;
    return true;
  }

  /**
   * The agent's tones toward a call this instance runs (a phone menu at the other end): the carrier's own DTMF
   * message where it has one, else in-band tones through the playout. False when the call is not live here.
   */
  sendDigits(callId: string, digits: string): boolean {
    const l = this.live.get(callId);
    if (!l?.session || !l.media) return false;
    if (l.media.sendDigits) l.media.sendDigits(digits);
    else { l.session.playout.enqueue(dtmfFrames(digits)); l.session.playout.pump(); }
    return true;
  }

  hangup(callId: string, reason: string): boolean {
    const l = this.live.get(callId);
    if (!l) return false;
    l.endReason = reason;
    if (l.session) l.session.hangup(reason); else l.dial.abort();
    return true;
  }

  /**
   * The agent stops and the call goes to a human; resolves once the carrier has bridged it (or refused). A transfer
   * to 'operator' with no number to dial (and a tenant hold time) puts the caller on hold in the handoff queue.
   */
  async transfer(callId: string, target: string, ask: TransferAsk = {}): Promise<boolean> {
    const l = this.live.get(callId);
    if (!l?.session) return false;
    const dial = target === 'operator' ? l.row.agent.transfer_number ?? this.d.humanTransferNumber : target;
    if (!dial && l.holdSeconds) { l.session.holdForOperator(); return true; }
    l.transferAsk = ask;
    await l.session.transfer(target);
    return true;
  }

  /**
   * Operator moves on a call this instance runs (src/handoffs/call_control.ts routes them here): false when the
   * call is not live here. Joined: the agent stops speaking; spoke: the caller hears the operator's words; left:
   * the agent takes the call again, or the call ends transferred to the operator.
   */
  operatorJoined(callId: string, operator: string): boolean {
    const l = this.live.get(callId);
    if (!l?.session) return false;
    l.operator = operator;
    l.session.operatorJoined();
    return true;
  }

  operatorSpoke(callId: string, text: string): boolean {
    const l = this.live.get(callId);
    if (!l?.session?.withOperator) return false;
    l.session.operatorSpoke(text);
    return true;
  }

  operatorLeft(callId: string, then: 'agent' | 'end'): boolean {
    const l = this.live.get(callId);
    if (!l?.session?.withOperator) return false;
    l.operatorLeg?.close(); // the agent speaks again alone, or the call ends
    l.session.operatorLeft(then);
    return true;
  }

  /** The ticket to this live call's audio, for the operator who has it (undefined otherwise, or with a leg joined). */
  operatorAudio(callId: string, operator: string): OperatorAudioTicket | undefined {
    const l = this.live.get(callId);
    if (!l?.session?.withOperator || l.operator !== operator || l.operatorLeg) return undefined;
    return this.d.operatorTicket?.(callId);
  }

  /**
   * The operator's audio leg started (/v1/media/operator, its capability redeemed): joined to the call while the
   * operator has it. False (the socket closes 1008) when the call is not live here, has no operator, or has a leg.
   */
  attachOperator(callId: string, leg: MediaStream): boolean {
    const l = this.live.get(callId);
    const session = l?.session;
    if (!l || !session?.withOperator || !l.operator || l.operatorLeg) return false;
    const row = l.row;
    const operator = l.operator;
    const conversations = new ConversationRepo(this.d.db, outageBufferOf(this.d.db));
    const log = this.d.log.child({ call_id: row.id });
    let joined: OperatorLeg | undefined;
    let gone = false; // the leg may end while it is being joined (its socket closed early)
    joined = joinOperatorLeg(leg, {
      join: (ear) => session.operatorAudio(ear), stt: this.d.adapters.stt, callId: row.id, language: row.language,
      timeoutMs: this.d.adapterTimeoutMs, log,
      turn: (t) => {
        const audio = { offset_ms: t.offsetMs, duration_ms: t.durationMs };
        // stored before it is published: whoever sees the turn live finds it in the conversation too
        const stored = row.conversation_id
          ? conversations.append(row.conversation_id, row.tenant_id, 'operator', t.text, { by: operator, spoken: true, ...audio, ...(t.text ? {} : { audio_only: true }) })
            .catch((err) => log.warn({ err }, "the operator's turn was not stored"))
          : Promise.resolve();
        void stored.then(() => this.d.events.publish(row.tenant_id, row.id, { type: 'transcript', speaker: 'operator', text: t.text, latencyMs: 0, partial: false, audio }))
          .catch((err) => log.warn({ err }, "the operator's turn was not published"));
      },
      left: () => { gone = true; if (joined && l.operatorLeg === joined) l.operatorLeg = undefined; },
    });
    if (!gone) l.operatorLeg = joined;
    return true;
  }

  async #run(row: CallRow): Promise<void> {
    const l: LiveCall = { row, dial: new AbortController(), moves: Promise.resolve() };
    this.live.set(row.id, l);
    const t = (from: CallStatus | CallStatus[], to: CallStatus, reason: string, extra = {}) => this.#move(row, from, to, reason, extra);
    const onEvent = (e: CarrierCallEvent) => this.#carrierNews(l, e);
    // A dispatch by this instance stores the call dialing already; a queued row (another instance's) still moves.
    if (row.status === 'queued' && !(await t('queued', 'dialing', 'dialing'))) return;
    const streamP = new Promise<MediaStream>((resolve) => { l.stream = resolve; });
    // What the carrier sends back in the stream's start message (Twilio <Parameter>s); the simulator does too.
    const parameters = this.streamParameters(row);
    let result: PlaceCallResult;
    try {
      result = await this.d.adapters.carrier.placeCall({
        callId: row.id, tenantId: row.tenant_id, to: row.to_number, mediaUrl: this.d.mediaUrl(), parameters,
        ...(row.scenario ? { scenario: row.scenario } : {}),
        ...(row.context.customer_name ? { calleeName: String(row.context.customer_name) } : {}),
      }, { signal: l.dial.signal, timeoutMs: this.d.ringTimeoutMs ?? 60_000, onEvent });
    } catch (err) {
      await l.moves;
      if (l.endReason) { await this.#finish(row, ['dialing', 'ringing'], 'canceled', l.endReason, { carrierStatus: l.carrierStatus }); return; }
      this.d.log.warn({ err, call_id: row.id }, 'placeCall failed');
      await this.#finish(row, ['dialing', 'ringing'], 'failed', 'carrier_error', { carrierStatus: l.carrierStatus });
      return;
    }
    row.carrier_call_id = result.carrierCallId;
    l.carrierStatus = result.carrierStatus ?? l.carrierStatus;
    await l.moves; // a 'ringing' the carrier reported is stored first
    const from: CallStatus[] = ['dialing', 'ringing'];
    if (CARRIER_END[result.outcome]) {
      await this.#finish(row, from, CARRIER_END[result.outcome], result.outcome === 'failed' ? 'carrier_failed' : result.outcome, { carrierStatus: l.carrierStatus });
      return;
    }
    if (!(await t(from, 'in_progress', result.outcome, { carrierCallId: result.carrierCallId }))) return;
    await this.#converse(l, streamP, result.outcome === 'voicemail');
  }

  /** An answered call: the wait for its media, the session, the hang-up at the carrier, the end. */
  async #converse(l: LiveCall, streamP: Promise<MediaStream>, voicemail: boolean): Promise<void> {
    const row = l.row;
    // A hang-up or shutdown while the media stream is awaited ends the wait too (the dial signal): the wait's
    // timer does not hold the process open, so close() would otherwise hang on it with nothing left running.
    const waited = sleep(this.d.mediaWaitMs ?? 15_000, l.dial.signal, { unref: true }).then(() => undefined, () => undefined);
    // read while the media is awaited: the hold time of the tenant's handoff queue
    const handoff = getHandoffSettings(this.d.db, row.tenant_id).catch(() => ({ ...DEFAULT_HANDOFF_SETTINGS }));
    const stream = await Promise.race([streamP, waited]);
    let reason: string;
    let session: CallSession | undefined;
    if (!stream) {
      // A stream arriving from now on is refused (1008), not handed to a call that has given up on it: it would
      // stay open, unattached, for as long as the carrier kept sending.
      l.stream = undefined;
      if (!l.endReason) { await this.#finish(row, 'in_progress', 'failed', 'media_timeout'); return; }
      reason = l.endReason; // hung up or shut down while waiting: ended below as a live session would be
    } else {
      const settings = await handoff;
      l.holdSeconds = settings.hold_seconds;
      session = this.#session(l, stream, settings);
      l.session = session;
      l.media = stream;
      if (l.endReason) session.hangup(l.endReason);
      else if (voicemail) session.machineDetected(true);
      else {
        session.start();
        if (l.machine) session.machineDetected(l.machine.beepDone); // detection that came before the stream
      }
      reason = await session.ended;
      l.operatorLeg?.close();
    }
    // the carrier's word when the call ended, not its echo of the hang-up below (a 'completed' status callback)
    const carrierStatus = l.carrierStatus;
    if (row.carrier_call_id) await this.d.adapters.carrier.hangup(row.carrier_call_id, { timeoutMs: this.d.adapterTimeoutMs }).catch(() => {});
    await Promise.allSettled(l.pending ?? []);
    // nobody is on the line any more: the call's handoff leaves the queue (waiting or with an operator), so operator
    // moves on it answer 409
    if (row.conversation_id) await closeHandoffOfEndedCall(this.d.db, row.tenant_id, row.conversation_id).catch(() => false);
    if (reason === 'transferred' && l.operator) {
      await this.d.events.publish(row.tenant_id, row.id, { type: 'transfer', target: `operator:${l.operator}`, by: l.operator }).catch(() => undefined);
    }
    await this.#finish(row, 'in_progress', 'completed', reason, { session, carrierStatus, operator: l.operator,
      ...(reason === 'transferred' && l.transferred ? { transferred: l.transferred } : {}) });
  }

  /** What the carrier reports while the call rings or runs: the ringing status, a machine, the end. */
  #carrierNews(l: LiveCall, e: CarrierCallEvent): void {
    switch (e.type) {
      case 'ringing':
        l.moves = l.moves.then(() => this.#move(l.row, 'dialing', 'ringing', 'ringing')).catch((err) => this.d.log.warn({ err, call_id: l.row.id }, 'ringing not stored'));
        break;
      case 'machine':
        l.carrierStatus = e.carrierStatus;
        l.machine = { beepDone: e.beepDone };
        l.session?.machineDetected(e.beepDone);
        break;
      case 'ended':
        l.carrierStatus = e.carrierStatus;
        // the media stream ends with the call; a session whose stream stays open regardless is ended here
        if (l.session) l.session.hangup('caller_hangup');
        else if (l.stream) { l.endReason ??= 'caller_hangup'; l.dial.abort(); } // gone before its media came: no wait
        break;
    }
  }

  #session(l: LiveCall, stream: MediaStream, handoff: HandoffSettings): CallSession {
    const row = l.row;
    const log = this.d.log.child({ call_id: row.id });
    const detector = this.d.pool.openCall(row.id, { sampleRateHz: 8000, turnDetectionTimeoutMs: row.agent.turn_detection_timeout_ms,
      interruptionSensitivity: row.agent.interruption_sensitivity });
    let session: CallSession | undefined = undefined;
    const out = deferred(sessionOutputs({ tenantId: row.tenant_id, callId: row.id, to: row.to_number, conversationId: row.conversation_id, events: this.d.events,
      conversations: new ConversationRepo(this.d.db, outageBufferOf(this.d.db)), tools: this.d.tools, ledger: () => session!.ledger, log, timeoutMs: this.d.adapterTimeoutMs }));
    session = new CallSession({ callId: row.id, agent: row.agent, language: row.language, context: row.context, tools: row.tools,
      operatorHoldMs: handoff.hold_seconds * 1000,
      timeScale: this.d.timeScale, adapterTimeoutMs: this.d.adapterTimeoutMs, replyMode: this.d.replyMode, recording: this.d.store.open(row.id) }, {
      media: stream, detector, adapters: this.d.adapters, out, ticker: this.d.ticker, log,
      // the dialog pressing keys (a phone menu at the other end), as POST /v1/calls/{id}/tones does
      sendDigits: (digits) => { this.sendDigits(row.id, digits); },
      ...(this.d.agentSaid ? { agentSaid: (text: string) => this.d.agentSaid!(row.id, text) } : {}),
      // 'operator': the agent's or the tenant's human number when there is one, else only the handoff queue takes it;
      // warm: the human hears the call's summary (the API's, else one from what was said so far) while the caller holds
      transfer: async (target) => {
        const dial = target === 'operator' ? row.agent.transfer_number ?? this.d.humanTransferNumber : target;
        const ask = l.transferAsk ?? {};
        l.transferAsk = undefined;
        if (!row.carrier_call_id || !dial) return;
        const mode = ask.mode ?? row.agent.transfer_mode ?? 'cold';
        const summary = mode === 'warm' ? transferSummary(ask.summary ?? `Call from the voice agent. ${summaryOf(summaryInput(session!.ledger, null))}`) : undefined;
        // warm is two carrier requests (the human's call, then the caller's move): twice the deadline
        const timeoutMs = this.d.adapterTimeoutMs * (mode === 'warm' ? 2 : 1);
        const done = await this.d.adapters.carrier.transfer(row.carrier_call_id, dial, { timeoutMs, mode, ...(summary ? { summary } : {}) });
        l.transferred = { target: dial, mode: done?.mode ?? 'cold' };
      },
      // the lead (the callee, or the caller of an inbound call) asked never to be called again
      // the DND row keeps how (source keypad_opt_out / spoken_opt_out) and when (created_at)
      optOut: (source) => {
        if (!/^\+[1-9]\d{6,14}$/.test(row.to_number)) return; // a browser caller has no number to block
        addToDnd(this.d.db, row.tenant_id, row.to_number, `${source}_opt_out`).catch((err) => log.warn({ err }, 'opt-out not stored'));
      },
      // nobody took the call from the handoff queue in time: it leaves the queue
      holdTimedOut: () => {
        if (row.conversation_id) closeUnansweredHandoff(this.d.db, row.tenant_id, row.conversation_id).catch((err) => log.warn({ err }, 'unanswered handoff not closed'));
      },
      callbackAccepted: () => {
        const name = session!.ledger.extracted.customer_name ?? row.context.customer_name ?? null;
        (l.pending ??= []).push(scheduleHoldCallback(this.d.db, { tenantId: row.tenant_id, callId: row.id, e164: row.to_number, conversationId: row.conversation_id,
          leadId: row.lead_id, name: name === null ? null : String(name), delayMinutes: handoff.callback_delay_minutes })
          .then((cb) => { session!.ledger.actions.push({ type: 'callback.schedule', status: '201_scheduled' }); log.info({ lead_id: cb.lead_id }, 'call-back scheduled'); },
            (err) => { session!.ledger.actions.push({ type: 'callback.schedule', status: '500_failed' }); log.warn({ err }, 'call-back not scheduled'); }));
      },
    });
    return session;
  }

  async #move(row: CallRow, from: CallStatus | CallStatus[], to: CallStatus, reason: string, extra = {}) {
    const moved = await transition(this.d.db, row.tenant_id, row.id, from, to, reason, extra);
    if (moved) this.d.events.announce(moved.item);
    return moved;
  }

  /**
   * Stores the outcome, then status + its item + outbox row in one transaction; tells listeners. Through a
   * database outage these writes are kept and run when it ends, after the call's kept items (src/db/outage.ts).
   * `lastActivityAt`: a call ended by another instance counts its duration up to then (endLost).
   */
  async #finish(row: CallRow, from: CallStatus | CallStatus[], to: CallStatus, reason: string,
    o: { session?: CallSession; lastActivityAt?: Date; carrierStatus?: string; onEnded?: () => void; operator?: string;
      transferred?: { target: string; mode: TransferMode } } = {}): Promise<void> {
    const { session, lastActivityAt } = o;
    const ledger = session?.ledger;
    const keep = <T>(write: () => Promise<T>) => outageBufferOf(this.d.db).keep(callKey(row.id), write);
    const recordingPath = session ? await session.recorder.finish().catch((err) => {
      this.d.log.warn({ err, call_id: row.id }, 'recording could not be written');
      return null;
    }) : null;
    if (ledger) {
      // the model's summary when the dialog writes one (within SUMMARY_TIMEOUT_MS), else the fields'
      const { summary, source } = await writeSummary(this.d.adapters.dialog, {
        ...summaryInput(ledger, reason),
        agent: { role: row.agent.role, language: row.language }, context: row.context, history: ledger.history,
      }, { timeoutMs: this.d.summaryTimeoutMs, onError: (err) => this.d.log.warn({ err, call_id: row.id }, 'model summary not written: the fields\' summary stands') });
      await keep(() => this.d.calls.repo.saveOutcome(row.tenant_id, row.id, { metrics: ledger.metrics(), extracted: ledger.extracted,
        actions: ledger.actions, humanEscalation: ledger.humanEscalation, disclosureDeliveredAt: ledger.disclosureDeliveredAt, recordingPath, summary, summarySource: source }));
    }
    if (o.carrierStatus) await keep(() => this.d.calls.repo.setCarrierStatus(row.tenant_id, row.id, o.carrierStatus!));
    const t = o.transferred;
    if (t) await keep(() => this.d.calls.repo.setTransfer(row.tenant_id, row.id, t.target, t.mode));
    // the callee asked to be called back: the lead gets a call job due then (the dialog kept it inside calling hours)
    const callbackAt = typeof ledger?.extracted.callback_at === 'string' ? new Date(ledger.extracted.callback_at) : undefined;
    if (reason === 'callback_requested' && row.lead_id && callbackAt && !Number.isNaN(callbackAt.getTime())) {
      await keep(() => scheduleCallback(this.d.db, row.tenant_id, row.lead_id!, callbackAt)).catch((err) => this.d.log.warn({ err, call_id: row.id }, 'call-back not scheduled'));
    }
    // With a webhook the outbox row commits with the status; without one the move is a plain (batched) statement.
    const also = row.webhook_url || lastActivityAt ? async (tx: Queryable) => {
      if (lastActivityAt) await setDurationUntil(tx, row.tenant_id, row.id, lastActivityAt);
      if (!row.webhook_url) return;
      const fresh = (await this.d.calls.repo.get(row.tenant_id, row.id, tx))!;
      const payload = callCompletedPayload(toRecord(fresh, this.d.recordingUrl));
      const handoff = row.conversation_id ? await handoffTimes(tx, row.tenant_id, row.conversation_id) : undefined;
      if (handoff) payload.handoff = { target: o.operator ? `operator:${o.operator}` : null, ...handoff };
      await this.d.outbox.enqueue(tx, { tenantId: row.tenant_id, callId: row.id, url: row.webhook_url, eventType: 'call.completed', payload });
    } : undefined;
    // the session's last items (deferred a macrotask past the turn, then batched) are stored before the final status,
    // so none gets a seq after the call's end (bounded: an outage starting meanwhile keeps them in order itself)
    await new Promise((r) => setImmediate(r));
    await settledWithin(this.d.events, row.id, ITEMS_SETTLE_MS);
    const moved = await keep(() => transition(this.d.db, row.tenant_id, row.id, from, to, reason, { endedReason: reason }, also));
    if (!moved) return;
    o.onEnded?.();
    if (row.webhook_url) this.d.onEnqueued();
    this.d.events.announce(moved.item);
    this.d.calls.notifyEnded({ id: row.id, tenant_id: row.tenant_id, status: to, ended_reason: reason, campaign_id: row.campaign_id });
  }

  /**
   * Ends a call whose instance died (src/calls/instances.ts) the way this runner ends its own: failed, reason
   * instance_lost, with its transition, status item, webhook and campaign listeners. Refused (a no-op) when the
   * call has moved since `row` was read.
   */
  async endLost(row: CallRow): Promise<void> {
    if (this.live.has(row.id)) return; // ours after all
    await this.#finish(row, row.status, 'failed', 'instance_lost', { lastActivityAt: await lastActivityAt(this.d.db, row) });
  }

  /**
   * Ends a call in storage that this instance does not drive (its owner is gone or did not answer a command):
   * from a status not yet answered to canceled, from in_progress to completed, the usual way (transition, status
   * item, call.completed in the same transaction, listeners). False when it was over already or moved meanwhile.
   */
  async endInStorage(row: CallRow, reason: string): Promise<boolean> {
    const pre: CallStatus[] = ['queued', 'scheduled', 'dialing', 'ringing'];
    const answered = !pre.includes(row.status);
    let ended = false;
    await this.#finish(row, answered ? 'in_progress' : pre, answered ? 'completed' : 'canceled', reason,
      { lastActivityAt: await lastActivityAt(this.d.db, row), onEnded: () => { ended = true; } });
    return ended;
  }

  /**
   * Another instance ended this call in storage (fencing): the call stops here, its recording is closed, and its
   * end (status, webhook) is the stored one: this runner's own end is refused by the conditional transition.
   */
  fence(callId: string): boolean {
    const l = this.live.get(callId);
    if (!l) return false;
    l.endReason = 'ended_elsewhere';
    if (l.session) l.session.hangup('ended_elsewhere'); else l.dial.abort();
    return true;
  }

  /** The ids of the calls this instance drives (the liveness tick checks they were not ended elsewhere). */
  liveIds(): string[] { return [...this.live.keys()]; }

  async close(): Promise<void> {
    outageBufferOf(this.d.db).close(); // shutting down during an outage: what waits for the database is given up
    for (const l of this.live.values()) { l.endReason = 'server_shutdown'; l.session?.hangup('server_shutdown'); l.dial.abort(); }
    await Promise.allSettled([...this.#running]);
  }
}

/** What the call's summary is written from: the ledger so far, and how the call ended (null: it goes on). */
function summaryInput(ledger: CallLedger, endedReason: string | null) {
  return { extracted: ledger.extracted, endedReason, humanEscalation: ledger.humanEscalation,
    booked: ledger.actions.some((a) => a.type === 'calendar.event.create' && /^2\d\d_/.test(a.status)) };
}

/** A summary short enough to be said before the two are connected: cut at the last sentence (else word) that fits. */
function transferSummary(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= TRANSFER_SUMMARY_MAX) return t;
  const head = t.slice(0, TRANSFER_SUMMARY_MAX);
  const cut = Math.max(head.lastIndexOf('. '), head.lastIndexOf('? '));
  return cut > TRANSFER_SUMMARY_MAX / 2 ? head.slice(0, cut + 1) : head.slice(0, head.lastIndexOf(' ')).trimEnd();
}

/** the longest a call's end waits for its last items to be stored before its final status */
const ITEMS_SETTLE_MS = 2000;

async function settledWithin(events: CallEventSink, callId: string, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([events.settled?.(callId), new Promise<void>((r) => { timer = setTimeout(r, ms); timer.unref(); })]);
  clearTimeout(timer);
}
