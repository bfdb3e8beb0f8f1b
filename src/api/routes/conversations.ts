/**
 * Conversation demo: public, JWT optional. With a JWT the conversation belongs to the
 * tenant (its default agent answers; escalations become handoffs) and only that tenant can use it; every request
 * counts against DEMO_TENANT_REQUESTS_PER_MINUTE per tenant. Without one it is anonymous, expires after
 * DEMO_CONVERSATION_TTL_SECONDS (then 410, and 404 once a later anonymous create has purged it) and every request
 * counts against DEMO_REQUESTS_PER_MINUTE per client IP (429); asking for a human hands it to DEMO_TENANT_ID.
 * Audio turns: JSON {wavBase64}, multipart/form-data with the WAV in the part named `audio`, or the WAV itself as the
 * body (audio/wav). `reply_audio` (JSON true, form field or query "true") adds the reply as speech.
 */
import express, { type Request, type Response } from 'express';
import multer from 'multer';
import { z } from 'zod';
import { parse } from '../validate.js';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../../errors.js';
import { DemoRateLimit } from '../../conversations/rate_limit.js';
import { MIN_SAMPLE_RATE_HZ, REPLY_AUDIO_RATE_HZ } from '../../conversations/demo.js';

const CreateBody = z.strictObject({ domain: z.string().trim().min(1).max(100).optional() });
const replyAudio = z.boolean().optional();
const TurnBody = z.strictObject({ text: z.string().trim().min(1).max(2000), reply_audio: replyAudio });
const AudioJson = z.strictObject({ wavBase64: z.string().min(1), reply_audio: replyAudio });
/** the text fields of a multipart audio turn, and the query of a raw audio/wav one */
const flag = z.enum(['true', 'false']).optional();
const AudioForm = z.strictObject({ reply_audio: flag });
const AudioQuery = z.strictObject({ reply_audio: flag });
const IdParam = z.object({ id: z.string().regex(/^conv_[0-9a-f]{24}$/, 'not a conversation id') });
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const PUBLIC = { kind: 'public', optionalJwt: true } as const;
/** WAV media types accepted as a raw body */
export const WAV_TYPES = ['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave'];
const AUDIO_PART = 'audio';

type Pre = NonNullable<Parameters<RouteTable['add']>[0]['pre']>[number];

/** multer/busboy failures as 400s that say what was expected (a malformed form is the client's, never a 500). */
function multipartError(err: unknown): ApiError {
  const e = err as { code?: string; field?: string; message?: string };
  if (e?.code === 'LIMIT_FILE_SIZE') return new ApiError('payload_too_large', 'the audio part exceeds AUDIO_BODY_LIMIT_BYTES');
  if (e?.code === 'LIMIT_UNEXPECTED_FILE') {
    const message = `unexpected file part "${e.field ?? ''}": send the WAV in a part named "${AUDIO_PART}" (one file)`;
    return new ApiError('validation_failed', message, { fields: [{ path: `body.${AUDIO_PART}`, message }] });
  }
  const what = e?.code?.startsWith('LIMIT_') ? `${e.message ?? 'limit exceeded'} (parts: "${AUDIO_PART}" and the field reply_audio)` : e?.message ?? 'unreadable';
  return new ApiError('validation_failed', `malformed multipart/form-data body: ${what}`);
}

export function conversationRoutes(t: RouteTable, deps: AppDeps): void {
  const demo = deps.conversations;
  const anonymous = new DemoRateLimit(deps.rateLimits.perMinute(deps.config.DEMO_REQUESTS_PER_MINUTE, 'demo_address'), 'anonymous demo requests from this address');
  const perTenant = new DemoRateLimit(deps.rateLimits.perMinute(deps.config.DEMO_TENANT_REQUESTS_PER_MINUTE, 'demo_tenant'), 'demo requests of this tenant');
  /** The caller's tenant (null = anonymous); each request counts against its rate limit. */
  const tenantOf = async (req: Request): Promise<string | null> => {
    if (req.principal) { await perTenant.consume(req.principal.tenantId); return req.principal.tenantId; }
    await anonymous.consume(req.ip ?? 'unknown');
    return null;
  };
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: deps.config.AUDIO_BODY_LIMIT_BYTES, files: 1, fields: 4, parts: 5 } }).single(AUDIO_PART);
  const raw = express.raw({ type: WAV_TYPES, limit: deps.config.AUDIO_BODY_LIMIT_BYTES });
  const audioBody: Pre = (req, res, next) => {
    if (req.is('multipart/form-data')) return upload(req as Request, res as Response, (err?: unknown) => next(err ? multipartError(err) : undefined));
    if (req.is(WAV_TYPES)) return raw(req as Request, res as Response, next);
    next();
  };

  t.add({
    method: 'post', path: '/conversations', tag: 'conversations', auth: PUBLIC, body: CreateBody,
    summary: 'Start a demo conversation (optional domain). With a JWT it belongs to the tenant; without, it is anonymous and expires.',
    responses: { 201: 'created: {id, domain, state, expires_at, …}', 429: 'rate limit (per address when anonymous, per tenant with a JWT)' },
    handler: async (req, res) => {
      const body = bodyOf(req, CreateBody);
      res.status(201).json(await demo.create(await tenantOf(req), body.domain));
    },
  });
  t.add({
    method: 'get', path: '/conversations/:id', tag: 'conversations', auth: PUBLIC,
    summary: "The conversation and its messages (same JWT, or none for an anonymous one, also after it was handed to the demo tenant's operators: their replies appear here).",
    responses: { 404: 'unknown, or another tenant\'s', 410: 'anonymous conversation expired' },
    handler: async (req) => demo.view(await tenantOf(req), parse(IdParam, req.params, 'params').id),
  });
  t.add({
    method: 'post', path: '/conversations/:id/turns', tag: 'conversations', auth: PUBLIC, body: TurnBody,
    summary: "A text turn: the agent's reply, extracted entities, escalation, and processingMs (ms of work behind the reply). "
      + `"reply_audio": true adds reply_audio {content_type: "audio/wav", base64}: the reply rendered by the text-to-speech adapter, ${REPLY_AUDIO_RATE_HZ / 1000} kHz mono PCM16 `
      + '(if the synthesis fails, reply_audio_error {code, message} instead, and the text reply stands). '
      + 'Asking for a human hands the conversation to the tenant (an anonymous one to DEMO_TENANT_ID: handoff says which), or the agent says no colleague is available. '
      + 'While handed off (waiting or with_operator), turns go to the operator: delivered_to "operator", empty agent text, no reply audio.',
    responses: { 200: 'reply (delivered_to "operator" while a person has the conversation: the text goes to them)', 409: 'conversation closed', 410: 'expired', 429: 'rate limit' },
    handler: async (req) => {
      const { id } = parse(IdParam, req.params, 'params');
      const { text, reply_audio } = bodyOf(req, TurnBody);
      return demo.textTurn(await tenantOf(req), id, text, { replyAudio: reply_audio });
    },
  });
  t.add({
    method: 'post', path: '/conversations/:id/audio', tag: 'conversations', auth: PUBLIC, body: AudioJson,
    requestTypes: ['multipart/form-data', ...WAV_TYPES], pre: [audioBody],
    summary: 'An audio turn, the WAV given one of three ways: JSON {wavBase64}, multipart/form-data part `audio` (field reply_audio=true '
      + 'optional), or the WAV itself as the body with Content-Type audio/wav (?reply_audio=true optional). Decoded and resampled off the '
      + `event loop; at least ${MIN_SAMPLE_RATE_HZ} Hz. Speech segments come from the audio worker pool, the transcript from the speech-to-text `
      + 'adapter (transcript_source says which; the embedded default hears speech with its offline grammar recogniser: names, needs, budgets, visit times, yes/no, requests; with SIM_SPEECH=tones it decodes SimVoice tone code first), then the dialog reply (reply_audio as for text turns). '
      + 'Limits: AUDIO_BODY_LIMIT_BYTES, AUDIO_MAX_SECONDS, the demo rate limits.',
    responses: {
      200: 'reply with caller transcript, segments and processingMs', 400: 'no audio, wrong part name, malformed multipart', 413: 'body or WAV too large',
      422: 'unprocessable_audio (audio_error: wav_malformed, wav_truncated, wav_unsupported, audio_too_long, audio_empty, sample_rate_too_low)',
      503: 'decoder queue full (retry)',
    },
    handler: async (req) => {
      const { id } = parse(IdParam, req.params, 'params');
      let wav: Uint8Array;
      let reply: boolean | undefined;
      if (req.is('multipart/form-data')) {
        reply = parse(AudioForm, { ...req.body }).reply_audio === 'true';
        if (!req.file) {
          const message = `multipart body needs the WAV in a part named "${AUDIO_PART}"`;
          throw new ApiError('validation_failed', message, { fields: [{ path: `body.${AUDIO_PART}`, message: 'required' }] });
        }
        wav = req.file.buffer;
      } else if (req.is(WAV_TYPES)) {
        reply = parse(AudioQuery, req.query, 'query').reply_audio === 'true';
        if (!Buffer.isBuffer(req.body) || req.body.length === 0) throw new ApiError('validation_failed', 'the audio/wav body is empty');
        wav = req.body;
      } else {
        const body = bodyOf(req, AudioJson);
        const b64 = body.wavBase64.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '');
        if (!BASE64.test(b64)) throw new ApiError('validation_failed', 'wavBase64 is not base64', { fields: [{ path: 'body.wavBase64', message: 'not base64' }] });
        wav = Buffer.from(b64, 'base64');
        reply = body.reply_audio;
      }
      return demo.audioTurn(await tenantOf(req), id, wav, { replyAudio: reply });
    },
  });
}
