/**
 * Conversation demo (seed §2.4, §4 rule 4): public, JWT optional. With a JWT the conversation belongs to the
 * tenant (its default agent answers; escalations become handoffs) and only that tenant can use it; without one
 * it is anonymous, expires after DEMO_CONVERSATION_TTL_SECONDS (then 410, and 404 once a later anonymous create
 * has purged it) and every anonymous request counts
 * against DEMO_REQUESTS_PER_MINUTE per client IP (429).
 * Audio turns: JSON {wavBase64} or multipart/form-data with the WAV in the part named `audio`.
 */
import multer from 'multer';
import { z } from 'zod';
import type { Request } from 'express';
import { parse } from '../validate.js';
import type { RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../../errors.js';
import { DemoRateLimit } from '../../conversations/rate_limit.js';

const CreateBody = z.strictObject({ domain: z.string().trim().min(1).max(100).optional() });
const TurnBody = z.strictObject({ text: z.string().trim().min(1).max(2000) });
const AudioJson = z.strictObject({ wavBase64: z.string().min(1) });
const IdParam = z.object({ id: z.string().regex(/^conv_[0-9a-f]{24}$/, 'not a conversation id') });
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const PUBLIC = { kind: 'public', optionalJwt: true } as const;

export function conversationRoutes(t: RouteTable, deps: AppDeps): void {
  const demo = deps.conversations;
  const limit = new DemoRateLimit(deps.config.DEMO_REQUESTS_PER_MINUTE);
  /** The caller's tenant (null = anonymous, which is rate limited). */
  const tenantOf = async (req: Request): Promise<string | null> => {
    if (req.principal) return req.principal.tenantId;
    await limit.consume(req.ip ?? 'unknown');
    return null;
  };
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: deps.config.AUDIO_BODY_LIMIT_BYTES, files: 1, fields: 4, parts: 5 } }).single('audio');
  const multipartOnly: NonNullable<Parameters<RouteTable['add']>[0]['pre']>[number] = (req, res, next) =>
    (req.is('multipart/form-data') ? upload(req, res, next) : next());

  t.add({
    method: 'post', path: '/conversations', tag: 'conversations', auth: PUBLIC, body: CreateBody,
    summary: 'Start a demo conversation (optional domain). With a JWT it belongs to the tenant; without, it is anonymous and expires.',
    responses: { 201: 'created: {id, domain, state, expires_at, …}', 429: 'anonymous rate limit' },
    handler: async (req, res) => {
      const body = parse(CreateBody, req.body);
      res.status(201).json(await demo.create(await tenantOf(req), body.domain));
    },
  });
  t.add({
    method: 'get', path: '/conversations/:id', tag: 'conversations', auth: PUBLIC,
    summary: 'The conversation and its messages (same JWT, or none for an anonymous one).',
    responses: { 404: 'unknown, or another tenant\'s', 410: 'anonymous conversation expired' },
    handler: async (req) => demo.view(await tenantOf(req), parse(IdParam, req.params, 'params').id),
  });
  t.add({
    method: 'post', path: '/conversations/:id/turns', tag: 'conversations', auth: PUBLIC, body: TurnBody,
    summary: "A text turn: the agent's reply, extracted entities, escalation, and processingMs (ms of work behind the reply).",
    responses: { 200: 'reply', 409: 'conversation handed off or closed', 410: 'expired' },
    handler: async (req) => {
      const { id } = parse(IdParam, req.params, 'params');
      const { text } = parse(TurnBody, req.body);
      return demo.textTurn(await tenantOf(req), id, text);
    },
  });
  t.add({
    method: 'post', path: '/conversations/:id/audio', tag: 'conversations', auth: PUBLIC, body: AudioJson,
    requestTypes: ['multipart/form-data'], pre: [multipartOnly],
    summary: 'An audio turn: WAV as JSON {wavBase64} or multipart/form-data part `audio`. Speech segments come from the audio worker '
      + 'pool, the transcript from the speech-to-text adapter (transcript_source says which; the simulator decodes SimVoice audio only), '
      + `then the dialog reply. Limits: AUDIO_BODY_LIMIT_BYTES, AUDIO_MAX_SECONDS.`,
    responses: { 200: 'reply with caller transcript, segments and processingMs', 413: 'body or WAV too large', 422: 'unprocessable_audio (audio_error: wav_malformed, wav_truncated, wav_unsupported, audio_too_long, audio_empty)' },
    handler: async (req) => {
      const { id } = parse(IdParam, req.params, 'params');
      let wav: Uint8Array;
      if (req.is('multipart/form-data')) {
        if (!req.file) throw new ApiError('validation_failed', 'multipart body needs the WAV in a part named "audio"', { fields: [{ path: 'body.audio', message: 'required' }] });
        wav = req.file.buffer;
      } else {
        const b64 = parse(AudioJson, req.body).wavBase64.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '');
        if (!BASE64.test(b64)) throw new ApiError('validation_failed', 'wavBase64 is not base64', { fields: [{ path: 'body.wavBase64', message: 'not base64' }] });
        wav = Buffer.from(b64, 'base64');
      }
      return demo.audioTurn(await tenantOf(req), id, wav);
    },
  });
}
