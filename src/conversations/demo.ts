/**
 * The conversation demo loop (seed §2.4): text or audio turns against the tenant's default agent through the
 * same adapters a call uses (speech-to-text, dialog model) and the audio worker pool for speech detection.
 * processingMs is wall time (performance.now) of the work behind a reply: decoding, detection,
 * recognition, the dialog turn and storage; not the time spent receiving the request body.
 */
import { performance } from 'node:perf_hooks';
import type { Db } from '../db/db.js';
import { ApiError, notFound } from '../errors.js';
import { AudioError, readWav, resample, type AudioPool } from '../audio/index.js';
import type { AdapterRuntime, DialogEvent } from '../adapters/index.js';
import { DEFAULT_AGENT, type AgentInput, type AgentRepo } from '../repos/agents.js';
import { ConversationRepo, type Conversation, type Message } from '../repos/conversations.js';

export interface TurnReply {
  conversation_id: string;
  /** what the agent says back */
  agent: { text: string; entities: Record<string, string | number>; escalation: string | null; ended: string | null };
  caller: { text: string; transcript_source: 'text' | 'stt_simulated' | 'stt_adapter'; note?: string };
  /** detected caller speech in the audio, ms from its start (audio turns only) */
  segments?: { startMs: number; endMs: number }[];
  audio?: { sampleRateHz: number; channels: number; durationMs: number };
  state: Conversation['state'];
  processingMs: number;
}

/** expired anonymous conversations removed per anonymous create */
const PURGE_BATCH = 20;
const NOTHING_HEARD = "Sorry, I didn't catch that. Could you say it again?";
const ms = (t0: number) => Math.round((performance.now() - t0) * 100) / 100;

export class DemoConversations {
  readonly repo: ConversationRepo;
  /** the clock expiry uses (tests fix it) */
  clock: () => Date = () => new Date();

  constructor(private readonly o: {
    db: Db; adapters: AdapterRuntime; audio: () => AudioPool | undefined; agents: AgentRepo;
    ttlSeconds: number; maxAudioSeconds: number; maxAudioBytes: number;
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

  /** The conversation if `tenantId` (null = anonymous) may use it; 404 otherwise, 410 once an anonymous one expired. */
  async open(tenantId: string | null, id: string): Promise<Conversation> {
    const c = await this.repo.get(tenantId, id);
    if (!c) throw notFound('conversation');
    if (c.expires_at && Date.parse(c.expires_at) <= this.clock().getTime()) throw new ApiError('gone', 'this demo conversation has expired');
    return c;
  }

  async textTurn(tenantId: string | null, id: string, text: string): Promise<TurnReply> {
    const t0 = performance.now();
    const conv = await this.open(tenantId, id);
    const reply = await this.#reply(conv, text, { transcript_source: 'text' });
    return { ...reply, processingMs: ms(t0) };
  }

  async audioTurn(tenantId: string | null, id: string, wav: Uint8Array): Promise<TurnReply> {
    const t0 = performance.now();
    const conv = await this.open(tenantId, id);
    const pool = this.o.audio();
    if (!pool) throw new ApiError('unavailable', 'the audio worker pool is not running', { retryable: true });
    let decoded;
    try {
      decoded = readWav(wav, { maxBytes: this.o.maxAudioBytes, maxDurationMs: this.o.maxAudioSeconds * 1000 });
    } catch (err) {
      if (!(err instanceof AudioError)) throw err;
      if (err.code === 'wav_too_large') throw new ApiError('payload_too_large', err.message, { audio_error: err.code });
      throw new ApiError('unprocessable_audio', err.message, { audio_error: err.code });
    }
    const agent = await this.#agent(conv);
    // Recognition at a telephone/wideband rate; detection resamples on its own.
    const rate = decoded.sampleRateHz === 8000 || decoded.sampleRateHz === 16000 ? decoded.sampleRateHz : 16000;
    const pcm = rate === decoded.sampleRateHz ? decoded.pcm : resample(decoded.pcm, decoded.sampleRateHz, rate);
    const [analysis, heard] = await Promise.all([
      pool.analyze(decoded.pcm, decoded.sampleRateHz, {
        turnDetectionTimeoutMs: agent.turn_detection_timeout_ms, interruptionSensitivity: agent.interruption_sensitivity,
      }),
      this.o.adapters.stt.transcribe(pcm, { language: agent.language, sampleRateHz: rate }),
    ]);
    const simulated = this.o.adapters.modes.stt === 'in_process';
    const caller = {
      transcript_source: simulated ? 'stt_simulated' as const : 'stt_adapter' as const,
      ...(simulated && !heard.text ? { note: 'the simulated speech-to-text decodes SimVoice audio only; real speech transcribes as empty' } : {}),
    };
    const reply = await this.#reply(conv, heard.text.trim(), caller, agent);
    return {
      ...reply, segments: analysis.segments,
      audio: { sampleRateHz: decoded.sampleRateHz, channels: decoded.channels, durationMs: Math.round(decoded.durationMs) },
      processingMs: ms(t0),
    };
  }

  async view(tenantId: string | null, id: string): Promise<Conversation & { messages: Message[] }> {
    const c = await this.open(tenantId, id);
    return { ...c, messages: await this.repo.messages(id) };
  }

  async #agent(conv: Conversation): Promise<AgentInput> {
    return (conv.tenant_id && (await this.o.agents.get(conv.tenant_id, 'default'))) || DEFAULT_AGENT;
  }

  async #reply(conv: Conversation, callerText: string, caller: Omit<TurnReply['caller'], 'text'>, agentIn?: AgentInput): Promise<Omit<TurnReply, 'processingMs'>> {
    if (conv.state !== 'active') throw new ApiError('conflict', `the conversation is ${conv.state}; the agent no longer replies`, { state: conv.state });
    const agent = agentIn ?? await this.#agent(conv);
    const history = await this.repo.messages(conv.id);
    const extracted: Record<string, string | number> = {};
    for (const m of history) Object.assign(extracted, (m.meta.entities as Record<string, string | number> | undefined) ?? {});
    const texts: string[] = [], entities: Record<string, string | number> = {};
    let escalation: string | null = null, ended: string | null = null;
    if (callerText) {
      const events: AsyncIterable<DialogEvent> = this.o.adapters.dialog.turn({
        callId: conv.id, agent, context: conv.domain ? { project_name: conv.domain } : {}, tools: [],
        history: history.map((m) => ({ role: m.role, text: m.text })), callerText, extracted, now: this.clock().toISOString(),
      });
      for await (const e of events) {
        if (e.type === 'text') texts.push(e.text);
        else if (e.type === 'entity') entities[e.key] = e.value;
        else if (e.type === 'escalate') escalation = e.reason;
        else if (e.type === 'end_call') ended = e.reason;
      }
      await this.repo.append(conv.id, conv.tenant_id, 'caller', callerText, { source: caller.transcript_source });
    } else texts.push(NOTHING_HEARD);
    const text = texts.join(' ');
    await this.repo.append(conv.id, conv.tenant_id, 'agent', text, { entities, ...(escalation ? { escalation } : {}), ...(ended ? { ended } : {}) });
    let state: Conversation['state'] = conv.state;
    // A tenant's conversation goes to a human; an anonymous demo has no operators, so it only reports the escalation.
    if (escalation && conv.tenant_id) state = (await this.repo.requestHandoff(conv.tenant_id, conv.id, escalation))?.state ?? state;
    return { conversation_id: conv.id, agent: { text, entities, escalation, ended }, caller: { text: callerText, ...caller }, state };
  }
}
