/**
 * Drives each dispatched call on this instance: dialing -> carrier outcome -> (simulated callee line) -> media
 * session -> final status. The end is one transaction: status + its status item (the stored transition) +
 * webhook outbox row, after the outcome (metrics, extracted data, actions, recording) is stored; then the status
 * item is announced and onCallEnded told.
 */
import { sleep } from '../adapters/deadline.js';
import type { AdapterSet, PlaceCallResult } from '../adapters/types.js';
import { simNumberFor, type SimScenario } from '../adapters/sim_numbers.js';
import type { AudioPool } from '../audio/index.js';
import type { Db } from '../db/db.js';
import type { Logger } from '../log.js';
import type { TwilioStream } from '../media/twilio_edge.js';
import type { Ticker } from '../media/ticker.js';
import type { RecordingStore } from '../recordings/store.js';
import { ConversationRepo } from '../repos/conversations.js';
import type { CallEventSink } from '../stream/types.js';
import type { ToolRunner } from '../tools/types.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { callCompletedPayload } from '../webhooks/payload.js';
import { transition } from './lifecycle.js';
import { toRecord, type CallRow } from './repo.js';
import type { CallRunnerPort, CallService } from './service.js';
import { CallSession } from './session.js';
import { sessionOutputs } from './session_outputs.js';
import type { SimCallees } from './sim_callees.js';
import type { CallStatus } from './types.js';

export interface RunnerDeps {
  db: Db; log: Logger; adapters: AdapterSet; tools: ToolRunner; pool: AudioPool; events: CallEventSink; calls: CallService;
  outbox: WebhookOutbox; onEnqueued: () => void; store: RecordingStore; ticker: Ticker; recordingUrl: (id: string) => string;
  mediaUrl: () => string; simulator: boolean; timeScale: number; adapterTimeoutMs: number;
  /** where simulated callees run (simulator mode) */
  callees: SimCallees;
  /** ring timeout of placeCall (ms) and the wait for the media stream after an answer (ms) */
  ringTimeoutMs?: number; mediaWaitMs?: number;
}

interface LiveCall { row: CallRow; dial: AbortController; session?: CallSession; stream?: (s: TwilioStream) => void; endReason?: string }

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

  /** The media edge found a stream for call_id: true if this instance runs that call and was waiting for it. */
  attachStream(callId: string, stream: TwilioStream): boolean {
    const l = this.live.get(callId);
    if (!l?.stream) return false;
    l.stream(stream);
    l.stream = undefined;
    return true;
  }

  hangup(callId: string, reason: string): boolean {
    const l = this.live.get(callId);
    if (!l) return false;
    l.endReason = reason;
    if (l.session) l.session.finish(reason); else l.dial.abort();
    return true;
  }

  async transfer(callId: string, target: string): Promise<boolean> {
    const l = this.live.get(callId);
    if (!l?.session) return false;
    if (l.row.carrier_call_id && target !== 'operator') {
      await this.d.adapters.carrier.transfer(l.row.carrier_call_id, target, { timeoutMs: this.d.adapterTimeoutMs });
    }
    l.session.transferred();
    return true;
  }

  async #run(row: CallRow): Promise<void> {
    const l: LiveCall = { row, dial: new AbortController() };
    this.live.set(row.id, l);
    const t = (from: CallStatus | CallStatus[], to: CallStatus, reason: string, extra = {}) => this.#move(row, from, to, reason, extra);
    // A dispatch by this instance stores the call dialing already (migration 050); an older queued row still moves.
    if (row.status === 'queued' && !(await t('queued', 'dialing', 'dialing'))) return;
    const streamP = new Promise<TwilioStream>((resolve) => { l.stream = resolve; });
    let result: PlaceCallResult;
    try {
      result = await this.d.adapters.carrier.placeCall({
        callId: row.id, tenantId: row.tenant_id, to: row.to_number, mediaUrl: this.d.mediaUrl(),
        parameters: { call_id: row.id, tenant_id: row.tenant_id },
      }, { signal: l.dial.signal, timeoutMs: this.d.ringTimeoutMs ?? 60_000 });
    } catch (err) {
      if (l.endReason) { await this.#finish(row, 'dialing', 'canceled', l.endReason); return; }
      this.d.log.warn({ err, call_id: row.id }, 'placeCall failed');
      await this.#finish(row, 'dialing', 'failed', 'carrier_error');
      return;
    }
    row.carrier_call_id = result.carrierCallId;
    if (CARRIER_END[result.outcome]) { await this.#finish(row, 'dialing', CARRIER_END[result.outcome], result.outcome === 'failed' ? 'carrier_failed' : result.outcome); return; }
    if (!(await t('dialing', 'in_progress', result.outcome, { carrierCallId: result.carrierCallId }))) return;
    if (this.d.simulator) {
      const scenario = (row.scenario ?? simNumberFor(row.to_number).scenario) as SimScenario;
      this.d.callees.launch({ mediaUrl: this.d.mediaUrl(), callId: row.id, carrierCallId: result.carrierCallId, scenario,
        parameters: { call_id: row.id, tenant_id: row.tenant_id }, timeScale: this.d.timeScale });
    }
    // A hang-up or shutdown while the media stream is awaited ends the wait too (the dial signal): the wait's
    // timer does not hold the process open, so close() would otherwise hang on it with nothing left running.
    const waited = sleep(this.d.mediaWaitMs ?? 15_000, l.dial.signal, { unref: true }).then(() => undefined, () => undefined);
    const stream = await Promise.race([streamP, waited]);
    let reason: string;
    let session: CallSession | undefined;
    if (!stream) {
      // A stream arriving from now on is refused (1008), not handed to a call that has given up on it: it would
      // stay open, unattached, for as long as the carrier kept sending.
      l.stream = undefined;
      if (!l.endReason) { await this.#finish(row, 'in_progress', 'failed', 'media_timeout'); return; }
      reason = l.endReason; // hung up or shut down while waiting: ended below as a live session would be
    } else if (result.outcome === 'voicemail') { stream.close(); reason = 'voicemail'; } else {
      const channel = this.d.pool.openCall(row.id, { sampleRateHz: 8000, turnDetectionTimeoutMs: row.agent.turn_detection_timeout_ms,
        interruptionSensitivity: row.agent.interruption_sensitivity });
      let ledger: CallSession['ledger'] | undefined;
      const out = sessionOutputs({ tenantId: row.tenant_id, callId: row.id, conversationId: row.conversation_id, events: this.d.events,
        conversations: new ConversationRepo(this.d.db), tools: this.d.tools, ledger: () => ledger!, log: this.d.log, timeoutMs: this.d.adapterTimeoutMs });
      session = new CallSession({ callId: row.id, agent: row.agent, language: row.language, context: row.context, tools: row.tools,
        timeScale: this.d.timeScale, adapterTimeoutMs: this.d.adapterTimeoutMs, recording: this.d.store.open(row.id) }, stream, channel, this.d.adapters, out, this.d.ticker,
      this.d.log.child({ call_id: row.id }));
      ledger = session.ledger;
      l.session = session;
      if (l.endReason) session.finish(l.endReason); else session.start();
      reason = await session.ended;
    }
    await this.d.adapters.carrier.hangup(result.carrierCallId, { timeoutMs: this.d.adapterTimeoutMs }).catch(() => {});
    await this.#finish(row, 'in_progress', 'completed', reason, session);
  }

  async #move(row: CallRow, from: CallStatus | CallStatus[], to: CallStatus, reason: string, extra = {}) {
    const moved = await transition(this.d.db, row.tenant_id, row.id, from, to, reason, extra);
    if (moved) this.d.events.announce(moved.item);
    return moved;
  }

  /** Stores the outcome, then status + its item + outbox row in one transaction; tells listeners. */
  async #finish(row: CallRow, from: CallStatus, to: CallStatus, reason: string, session?: CallSession): Promise<void> {
    const ledger = session?.ledger;
    const recordingPath = session ? await session.recorder.finish().catch((err) => {
      this.d.log.warn({ err, call_id: row.id }, 'recording could not be written');
      return null;
    }) : null;
    if (ledger) {
      await this.d.calls.repo.saveOutcome(row.tenant_id, row.id, { metrics: ledger.metrics(), extracted: ledger.extracted,
        actions: ledger.actions, humanEscalation: ledger.humanEscalation, recordingPath });
    }
    // With a webhook the outbox row commits with the status; without one the move is a plain (batched) statement.
    const moved = await transition(this.d.db, row.tenant_id, row.id, from, to, reason, { endedReason: reason }, row.webhook_url ? async (tx) => {
      const fresh = (await tx.query<CallRow>('SELECT * FROM calls WHERE id = $1 AND tenant_id = $2', [row.id, row.tenant_id])).rows[0];
      const payload = callCompletedPayload(toRecord(fresh, this.d.recordingUrl));
      await this.d.outbox.enqueue(tx, { tenantId: row.tenant_id, callId: row.id, url: row.webhook_url!, eventType: 'call.completed', payload });
    } : undefined);
    if (!moved) return;
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
    await this.#finish(row, row.status, 'failed', 'instance_lost');
  }

  async close(): Promise<void> {
    for (const l of this.live.values()) { l.endReason = 'server_shutdown'; l.session?.finish('server_shutdown'); l.dial.abort(); }
    await Promise.allSettled([...this.#running]);
  }
}
