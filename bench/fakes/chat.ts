/**
 * Fake OpenAI-compatible Chat Completions (reference 3) at .../chat/completions: Bearer auth, and with
 * "stream": true an SSE stream of chat.completion.chunk events, the first content token firstTokenMs after the
 * request and then tokensPerS, ending with finish_reason "stop", a usage chunk if asked, and [DONE]. The reply is
 * the fixed REPLY_TEXT whatever the conversation. A client that goes away stops the stream (counted as aborted).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, sendJson } from './http.js';
import { REPLY_TEXT, replyTokens, type FakeSettings } from './settings.js';

export interface ChatStats { requests: number; streamed: number; aborted: number; completed: number; unauthorized: number; badRequests: number }

export class FakeChat {
  readonly stats: ChatStats = { requests: 0, streamed: 0, aborted: 0, completed: 0, unauthorized: 0, badRequests: 0 };
  constructor(private readonly s: FakeSettings) {}

  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    if (!path.endsWith('/chat/completions') || req.method !== 'POST') return false;
    this.stats.requests++;
    if (!/^Bearer\s+\S+/.test(req.headers.authorization ?? '')) {
      this.stats.unauthorized++;
      sendJson(res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
      return true;
    }
    let body: { model?: string; messages?: unknown[]; stream?: boolean; stream_options?: { include_usage?: boolean } };
    try { body = JSON.parse(await readBody(req)); } catch { body = {}; }
    if (!body.model || !Array.isArray(body.messages) || !body.messages.length) {
      this.stats.badRequests++;
      sendJson(res, 400, { error: { message: "'model' and 'messages' are required", type: 'invalid_request_error', param: null, code: null } });
      return true;
    }
    const id = `chatcmpl-${crypto.randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    const tokens = replyTokens();
    const usage = { prompt_tokens: 100, completion_tokens: tokens.length, total_tokens: 100 + tokens.length };
    if (!body.stream) {
      setTimeout(() => sendJson(res, 200, { id, object: 'chat.completion', created, model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: REPLY_TEXT }, finish_reason: 'stop' }], usage }), this.s.firstTokenMs);
      return true;
    }
    this.stats.streamed++;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const chunk = (delta: Record<string, unknown>, finish: string | null) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created,
      model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const t0 = performance.now();
    let i = 0;
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    res.on('close', () => { if (!done) { this.stats.aborted++; clearTimeout(timer); done = true; } });
    // each token at its own time from the start (first token + i / rate), so timer lateness does not accumulate
    const next = () => {
      if (done) return;
      if (i === 0) res.write(chunk({ role: 'assistant', content: '' }, null));
      res.write(chunk({ content: tokens[i] }, null));
      i++;
      if (i < tokens.length) { timer = setTimeout(next, Math.max(0, t0 + this.s.firstTokenMs + (i * 1000) / this.s.tokensPerS - performance.now())); return; }
      res.write(chunk({}, 'stop'));
      if (body.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
      done = true;
      this.stats.completed++;
    };
    timer = setTimeout(next, this.s.firstTokenMs);
    return true;
  }
}
