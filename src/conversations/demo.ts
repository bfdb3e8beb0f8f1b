/**
 * The conversation demo loop (seed §2.4): text or audio turns against the tenant's default agent through the
 * same adapters a call uses (speech-to-text, dialog model, text-to-speech) and the audio worker pool for speech
 * detection. processingMs is wall time (performance.now) of the work behind a reply: decoding, detection,
 * recognition, the dialog turn, the reply audio when asked for, and storage; not the time spent receiving the body.
 *
 * Audio is decoded and resampled off the event loop (wav_worker.ts), and refused below MIN_SAMPLE_RATE_HZ, so the
 * work of a turn is proportional to the samples it really holds.
 *
 * Asking for a human: a tenant's conversation becomes a handoff of that tenant; an anonymous one is handed to the
 * tenant the public demo belongs to (DEMO_TENANT_ID): it joins that tenant (its operators see it in GET /v1/handoffs,
 * its retention applies) and stays readable without a JWT by whoever holds its id, so the visitor sees the
 * operator's reply. With no such tenant (DEMO_TENANT_ID=none or unknown), or DEMO_HANDOFF_QUEUE_MAX anonymous
 * handoffs already waiting, the agent says so instead of promising a colleague.
 */
import { performance } from 'node:perf_hooks';
import type { Db } from '../db/db.js';
import { ApiError, notFound } from '../errors.js';
import { concatPcm, writeWav, type AudioPool } from '../audio/index.js';
import { AdapterError, type AdapterRuntime, type DialogEvent, type ListenHint } from '../adapters/index.js';
import { DEFAULT_AGENT, type AgentRepo, type ScriptedAgent } from '../repos/agents.js';
import { ConversationRepo, type Conversation, type Message } from '../repos/conversations.js';
import { WavWorker } from './wav_worker.js';
import { summaryOf, writeSummary, type SummarySource } from '../dialog/summary.js';
import { visitorTurn } from '../handoffs/visitor.js';

export interface TurnReply {
  conversation_id: string;
  /** what the agent says back */
  agent: { text: string; entities: Record<string, string | number>; escalation: string | null; ended: string | null };
  caller: { text: string; transcript_source: 'text' | 'stt_simulated' | 'stt_adapter'; note?: string };
  /** detected caller speech in the audio, ms from its start (audio turns only) */
  segments?: { startMs: number; endMs: number }[];
  audio?: { sampleRateHz: number; channels: number; durationMs: number };
  /** the agent's reply rendered by the text-to-speech adapter, when the turn asked for it */
  reply_audio?: { content_type: 'audio/wav'; base64: string };
  /** set instead of reply_audio when the text-to-speech failed: the text reply stands, only its audio is missing */
  reply_audio_error?: { code: string; message: string };
  /** set when this turn handed the conversation to a human; the tenant whose operators see it only for a JWT caller
   *  (an anonymous visitor is not told which tenant runs the public demo) */
  handoff?: { tenant_id?: string; handoff_state: string };
  /** 'operator' while the conversation is handed off: the turn went to the operator (src/handoffs/visitor.ts), agent.text is empty */
  delivered_to?: 'agent' | 'operator';
  state: Conversation['state'];
  processingMs: number;
}

export interface TurnOptions {
  /** render the agent's reply as 16 kHz mono PCM16 WAV (reply_audio) */
  replyAudio?: boolean;
}

/** expired anonymous conversations removed per anonymous create */
const PURGE_BATCH = 20;
/** why an audio turn of the embedded default heard nothing: what its offline recogniser understands */
export const OFFLINE_EARS_NOTE = 'the offline grammar recogniser understands names, property needs, budgets (lakh, crore, thousand,'
  + ' million), visit days and times, yes and no, and requests (a person, not interested, stop calling, call later, repeat);'
  + ' other speech is not recognised: set STT_PROVIDER for open speech-to-text';
const NOTHING_HEARD = "Sorry, I didn't catch that. Could you say it again?";
/** Audio below this rate is refused (422 unprocessable_audio, audio_error sample_rate_too_low). */
export const MIN_SAMPLE_RATE_HZ = 8000;
/** Reply audio: what the demo page plays. */
export const REPLY_AUDIO_RATE_HZ = 16_000;
/** Anonymous handoffs waiting for the demo tenant's operators beyond which no more are opened. */
export const DEMO_HANDOFF_QUEUE_MAX = 100;
/** Context the dialog gets when no human can take over: it says so rather than promising a colleague. */
export const NO_HUMAN_CONTEXT = { human_handoff: 'unavailable' } as const;
const CONV_COLS = 'id, tenant_id, domain, state, handoff_state, handoff_reason, accepted_by, call_id, lead_id, expires_at, created_at, updated_at';
const ms = (t0: number) => Math.round((performance.now() - t0) * 100) / 100;
const iso = (v: unknown) => (v == null ? null : v instanceof Date ? v.toISOString() : String(v));

export class DemoConversations {
  readonly repo: ConversationRepo;
  /** the clock expiry uses (tests fix it) */
  clock: () => Date = () => new Date();
  readonly #wav = new WavWorker();

  constructor(private readonly o: {
    db: Db; adapters: AdapterRuntime; audio: () => AudioPool | undefined; agents: AgentRepo;
    ttlSeconds: number; maxAudioSeconds: number; maxAudioBytes: number;
    /** the longest wait for a model's summary when the agent ends a conversation (SUMMARY_TIMEOUT_MS) */
    summaryTimeoutMs?: number;
    /** the tenant an anonymous conversation is handed to when the visitor asks for a human; null: none */
    demoTenantId?: string | null;
  }) {
    this.repo = new ConversationRepo(o.db);
  }

  async create(tenantId: string | null, domain: string | undefined): Promise<Conversation> {
    if (tenantId) return this.repo.create({ tenantId, domain: domain ?? null });
    // Demo traffic cleans up after itself: each anonymous conversation removes a few expired ones (no timer).
    await this.purgeExpired(PURGE_BATCH);
    return this.repo.create({ tenantId: null, domain: domain ?? null, expiresAt: new Date(this.clock().getTime() + this.o.ttlSeconds * 1000) });
  }

  /** Deletes up to `limit` expired anonymous conversations (their messages cascade); returns how many. */
  async purgeExpired(limit: number): Promise<number> {
    const r = await this.o.db.query(
      `DELETE FROM conversations WHERE id IN (SELECT id FROM conversations WHERE tenant_id IS NULL AND expires_at < $1 LIMIT $2)`, [this.clock(), limit]);
    return r.rowCount;
  }

  /**
   * The conversation if `tenantId` (null = anonymous) may use it; 404 otherwise, 410 once an anonymous one expired.
   * An anonymous conversation handed to the demo tenant stays open to anonymous requests (its id is the credential).
   */
  async open(tenantId: string | null, id: string): Promise<Conversation> {
    const c = (await this.repo.get(tenantId, id)) ?? (tenantId === null ? await this.#handedOff(id) : undefined);
    if (!c) throw notFound('conversation');
    if (c.expires_at && Date.parse(c.expires_at) <= this.clock().getTime()) throw new ApiError('gone', 'this demo conversation has expired');
    return c;
  }

  async textTurn(tenantId: string | null, id: string, text: string, opts: TurnOptions = {}): Promise<TurnReply> {
    const t0 = performance.now();
    const conv = await this.open(tenantId, id);
    const reply = await this.#reply(conv, text, { transcript_source: 'text' });
    return { ...reply, ...(opts.replyAudio && reply.agent.text ? await this.#speak(reply.agent.text, await this.#agent(conv)) : {}), processingMs: ms(t0) };
  }

  async audioTurn(tenantId: string | null, id: string, wav: Uint8Array, opts: TurnOptions = {}): Promise<TurnReply> {
    const t0 = performance.now();
    const conv = await this.open(tenantId, id);
    if (conv.state === 'closed') throw await this.#notActive(conv);
    const pool = this.o.audio();
    if (!pool) throw new ApiError('unavailable', 'the audio worker pool is not running', { retryable: true });
    const warming = this.o.adapters.warmEars?.().catch(() => {}); // a failure shows in the transcription itself
    const decoded = await this.#wav.decode(wav, { maxBytes: this.o.maxAudioBytes, maxDurationMs: this.o.maxAudioSeconds * 1000, minSampleRateHz: MIN_SAMPLE_RATE_HZ });
    if (!decoded.ok) {
      if (decoded.code === 'wav_too_large') throw new ApiError('payload_too_large', decoded.message, { audio_error: decoded.code });
      throw new ApiError('unprocessable_audio', decoded.message, { audio_error: decoded.code });
    }
    const agent = await this.#agent(conv);
    await warming;
    // Decoded at a telephone or wideband rate already: detection (on the pool) and recognition take it as is.
    const pcm = new Int16Array(decoded.pcm);
    const [analysis, heard] = await Promise.all([
      pool.analyze(pcm, decoded.rateHz, {
        turnDetectionTimeoutMs: agent.turn_detection_timeout_ms, interruptionSensitivity: agent.interruption_sensitivity,
      }),
      // a whole recording is transcribed at once: its deadline grows with its length (a live provider's too)
      this.o.adapters.stt.transcribe(pcm, { language: agent.language, sampleRateHz: decoded.rateHz, hint: await this.#listening(conv.id),
        timeoutMs: (this.o.adapters.timeoutMs ?? 3000) + decoded.durationMs }).catch(sttProblem),
    ]);
    const simulated = this.o.adapters.modes.stt === 'in_process';
    const caller = {
      transcript_source: simulated ? 'stt_simulated' as const : 'stt_adapter' as const,
      ...(simulated && !heard.text ? { note: OFFLINE_EARS_NOTE } : {}),
    };
    const reply = await this.#reply(conv, heard.text.trim(), caller, agent);
    return {
      ...reply, segments: analysis.segments,
      audio: { sampleRateHz: decoded.sampleRateHz, channels: decoded.channels, durationMs: Math.round(decoded.durationMs) },
      ...(opts.replyAudio && reply.agent.text ? await this.#speak(reply.agent.text, agent) : {}),
      processingMs: ms(t0),
    };
  }

  async view(tenantId: string | null, id: string): Promise<Conversation & ConversationSummary & { messages: Message[] }> {
    const c = await this.open(tenantId, id);
    const messages = await this.repo.messages(id);
    // an anonymous visitor reading a conversation handed to the demo tenant is not told that tenant's id, nor the operator's
    return { ...c, ...(tenantId === null ? { tenant_id: null, accepted_by: null } : {}), ...await this.#summaryOf(c, messages), messages };
  }

  async close(): Promise<void> { await this.#wav.close(); }

  /**
   * A closed conversation's summary. The agent's ending writes it (#summarise); one an operator closed gets the
   * fields' summary the first time it is read (the handoff's close is not the demo loop's to hook).
   */
  async #summaryOf(c: Conversation, messages: Message[]): Promise<ConversationSummary> {
    const stored = await this.repo.summary(c.id);
    if (stored.summary || c.state !== 'closed' || c.call_id) return stored;
    const summary = summaryOf(summaryInput(messages));
    await this.repo.setSummary(c.id, summary, 'fields');
    return this.repo.summary(c.id);
  }

  /** The agent ended the conversation: the model's summary when the dialog writes one in time, else the fields'. */
  async #summarise(conv: Conversation, agent: ScriptedAgent, context: Record<string, string>): Promise<void> {
    const messages = await this.repo.messages(conv.id);
    const { summary, source } = await writeSummary(this.o.adapters.dialog, {
      ...summaryInput(messages), agent: { role: agent.role, language: agent.language }, context,
      history: messages.map((m) => ({ role: m.role, text: m.text })),
    }, { timeoutMs: this.o.summaryTimeoutMs });
    await this.repo.setSummary(conv.id, summary, source);
  }

  /** What the agent's last reply waits to hear (its listen hint), which steers a grammar recogniser. */
  async #listening(id: string): Promise<ListenHint | undefined> {
    const last = (await this.repo.messages(id)).filter((m) => m.role === 'agent').at(-1);
    return last?.meta.listen as ListenHint | undefined;
  }

  /** The tenant's default agent as the dialog takes it: its steps, and its text script for a language model. */
  async #agent(conv: Conversation): Promise<ScriptedAgent & { qualify_text?: string }> {
    const a = conv.tenant_id ? await this.o.agents.get(conv.tenant_id, 'default') : undefined;
    if (!a) return DEFAULT_AGENT;
    return { ...a, qualify_script: a.qualify_steps, ...(typeof a.qualify_script === 'string' ? { qualify_text: a.qualify_script } : {}) };
  }

  /**
   * The reply through the configured text-to-speech adapter (TTS_PROVIDER, else the simulator), as a 16 kHz mono
   * PCM16 WAV. A synthesis failure leaves the stored text reply standing and says why the audio is missing.
   */
  async #speak(text: string, agent: ScriptedAgent): Promise<Pick<TurnReply, 'reply_audio' | 'reply_audio_error'>> {
    const chunks: Int16Array[] = [];
    try {
      for await (const c of (this.o.adapters.voice ?? this.o.adapters.tts).synthesize({ text, voice: agent.voice, language: agent.language, sampleRateHz: REPLY_AUDIO_RATE_HZ })) chunks.push(c);
    } catch (err) {
      return { reply_audio_error: { code: err instanceof AdapterError ? err.code : 'failed', message: err instanceof Error ? err.message : String(err) } };
    }
    const wav = writeWav({ sampleRateHz: REPLY_AUDIO_RATE_HZ, channels: [concatPcm(chunks.length ? chunks : [new Int16Array(0)])] });
    return { reply_audio: { content_type: 'audio/wav', base64: Buffer.from(wav.buffer, wav.byteOffset, wav.byteLength).toString('base64') } };
  }

  async #reply(conv: Conversation, callerText: string, caller: Omit<TurnReply['caller'], 'text'>, agentIn?: ScriptedAgent & { qualify_text?: string }): Promise<Omit<TurnReply, 'processingMs'>> {
    if (conv.state === 'handoff') return visitorTurn(this.repo, conv, callerText, caller);
    if (conv.state !== 'active') throw await this.#notActive(conv);
    const agent = agentIn ?? await this.#agent(conv);
    const history = await this.repo.messages(conv.id);
    const extracted: Record<string, string | number> = {};
    for (const m of history) Object.assign(extracted, (m.meta.entities as Record<string, string | number> | undefined) ?? {});
    const texts: string[] = [], entities: Record<string, string | number> = {};
    let escalation: string | null = null, ended: string | null = null, listen: ListenHint | undefined;
    // Anonymous: a human can take over only through the demo tenant (and while its queue has room).
    const handoffTo = conv.tenant_id ?? await this.#demoHandoffTenant();
    // Disclosure first, always: a first turn the agent did not understand still opens with it (the dialog's opening)
    const opening = !history.some((m) => m.role === 'agent');
    const context: Record<string, string> = { ...(conv.domain ? { project_name: conv.domain } : {}), ...(handoffTo ? {} : NO_HUMAN_CONTEXT) };
    if (callerText || opening) {
      const events: AsyncIterable<DialogEvent> = this.o.adapters.dialog.turn({
        callId: conv.id, agent, context, tools: [],
        history: history.map((m) => ({ role: m.role, text: m.text })), callerText, extracted, now: this.clock().toISOString(),
      });
      for await (const e of events) {
        if (e.type === 'text') texts.push(e.text);
        else if (e.type === 'entity') entities[e.key] = e.value;
        else if (e.type === 'escalate') escalation = e.reason;
        else if (e.type === 'end_call') ended = e.reason;
        else if (e.type === 'listen') listen = e.hint;
      }
      if (callerText) await this.repo.append(conv.id, conv.tenant_id, 'caller', callerText, { source: caller.transcript_source });
    } else texts.push(NOTHING_HEARD);
    const text = joinFragments(texts);
    await this.repo.append(conv.id, conv.tenant_id, 'agent', text, { entities, ...(escalation ? { escalation } : {}), ...(ended ? { ended } : {}), ...(listen ? { listen } : {}) });
    let state: Conversation['state'] = conv.state;
    // the agent ended it: the conversation is over, and a later turn is refused (409)
    if (ended && !escalation) {
      const closed = await this.repo.closeByAgent(conv.id);
      if (closed) { state = closed.state; await this.#summarise(conv, agent, context); }
    }
    let handoff: TurnReply['handoff'];
    if (escalation && handoffTo) {
      const moved = conv.tenant_id ? await this.repo.requestHandoff(conv.tenant_id, conv.id, escalation) : await this.#handToDemoTenant(conv.id, handoffTo, escalation);
      if (moved) { state = moved.state; handoff = { ...(conv.tenant_id ? { tenant_id: handoffTo } : {}), handoff_state: moved.handoff_state! }; }
    }
    return { conversation_id: conv.id, agent: { text, entities, escalation, ended }, caller: { text: callerText, ...caller }, state, ...(handoff ? { handoff } : {}) };
  }

  /** 409 for a turn to a conversation the agent no longer answers: why (the agent's ending, or a handoff), and what to do. */
  async #notActive(conv: Conversation): Promise<ApiError> {
    if (conv.state === 'handoff') {
      return new ApiError('conflict', 'the conversation is handed to a person; the agent no longer replies', { state: conv.state });
    }
    const last = (await this.repo.messages(conv.id)).filter((m) => m.role === 'agent').at(-1);
    const ended = typeof last?.meta.ended === 'string' ? last.meta.ended : null;
    return new ApiError('conflict', `the conversation has ended${ended ? ` (${ended})` : ''}; start a new conversation to talk to the agent again`,
      { state: conv.state, ended_reason: ended });
  }

  /** The demo tenant when it exists and its queue of anonymous handoffs has room; null otherwise. */
  async #demoHandoffTenant(): Promise<string | null> {
    const tenant = this.o.demoTenantId;
    if (!tenant) return null;
    const r = await this.o.db.query<{ known: boolean; waiting: number }>(
      `SELECT EXISTS (SELECT 1 FROM tenants WHERE id = $1) AS known,
         (SELECT count(*)::int FROM conversations WHERE tenant_id = $1 AND opened_anonymously AND handoff_state = 'waiting') AS waiting`, [tenant]);
    const { known, waiting } = r.rows[0];
    return known && waiting < DEMO_HANDOFF_QUEUE_MAX ? tenant : null;
  }

  /** An anonymous conversation joins the demo tenant, messages and all, as a waiting handoff (one transaction). */
  async #handToDemoTenant(id: string, tenant: string, reason: string): Promise<Conversation | undefined> {
    return this.o.db.transaction(async (tx) => {
      const r = await tx.query<{ id: string }>(
        `UPDATE conversations SET tenant_id = $2, expires_at = NULL, opened_anonymously = true, updated_at = now()
         WHERE id = $1 AND tenant_id IS NULL RETURNING id`, [id, tenant]);
      if (!r.rows[0]) return undefined;
      await tx.query('UPDATE conversation_messages SET tenant_id = $2 WHERE conversation_id = $1', [id, tenant]);
      return new ConversationRepo(tx).requestHandoff(tenant, id, reason);
    });
  }

  /** An anonymous conversation that was handed to the demo tenant (readable without a JWT by its id). */
  async #handedOff(id: string): Promise<Conversation | undefined> {
    const r = await this.o.db.query<Conversation>(`SELECT ${CONV_COLS} FROM conversations WHERE id = $1 AND opened_anonymously`, [id]);
    const c = r.rows[0];
    return c && { ...c, expires_at: iso(c.expires_at), created_at: iso(c.created_at)!, updated_at: iso(c.updated_at)! };
  }
}

/** A closed conversation's few sentences (who, what they want, budget, next step, open questions); null while it runs. */
export interface ConversationSummary { summary: string | null; summary_source: SummarySource | null }

/** What the fields' summary reads from a conversation: the entities its agent replies carried, and how it ended. */
function summaryInput(messages: Message[]) {
  const extracted: Record<string, string | number> = {};
  let endedReason: string | null = null, humanEscalation = false;
  for (const m of messages) {
    Object.assign(extracted, (m.meta.entities as Record<string, string | number> | undefined) ?? {});
    if (typeof m.meta.ended === 'string') endedReason = m.meta.ended;
    if (m.meta.escalation) humanEscalation = true;
  }
  return { extracted, endedReason, humanEscalation, booked: false };
}

/** A speech-to-text failure is the provider's, not ours: 503 with its code, and nothing recorded as heard. */
function sttProblem(err: unknown): never {
  const e = err instanceof AdapterError ? err : undefined;
  throw new ApiError('unavailable', `speech-to-text failed: ${e?.message ?? 'unknown error'}`, { retryable: e?.retryable ?? true, stt_error: e?.code ?? 'failed' });
}

/**
 * The reply's text from its events: a model streams fragments of one text ("Hel", "lo. "), the scripted engine
 * whole sentences ("Hi.", "How are you?"): a space goes only between a finished sentence and the next.
 */
export function joinFragments(parts: string[]): string {
  let text = '';
  for (const p of parts) text += /[.!?…।॥]$/.test(text) && /^\S/.test(p) ? ` ${p}` : p;
  return text.trim();
}
