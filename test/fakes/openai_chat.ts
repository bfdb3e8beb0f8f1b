/**
 * A local fake of an OpenAI-compatible Chat Completions server (POST /v1/chat/completions, stream:true), built
 * from the documented wire format: `data: {chat.completion.chunk}` SSE events with content deltas, tool-call
 * fragments keyed by index (id, type and name first, then argument pieces), a finish_reason, the usage chunk
 * with empty choices, then `data: [DONE]`. Each request takes the next scripted reply; failures are injected per
 * reply: an HTTP error (429 with retry-after, 5xx), a slow first token, a stream cut mid-sentence, malformed
 * chunks, or a whole non-streamed chat.completion (a server that ignores stream:true). It records every request and whether the client went away before the reply ended (barge-in).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export type FakeEvent =
  /** one SSE event carrying this JSON */
  | { data: unknown }
  /** raw bytes written as they are (malformed chunks, odd line endings) */
  | { raw: string }
  /** a pause before the next event, ms */
  | { waitMs: number };

export type FakeReply =
  | { kind: 'error'; status: number; headers?: Record<string, string>; body?: unknown }
  /** cut: the connection is destroyed after the events, with no [DONE] */
  | { kind: 'stream'; events: FakeEvent[]; cut?: boolean }
  /** a server that ignores stream:true: one chat.completion object as JSON */
  | { kind: 'whole'; message: Record<string, unknown>; finishReason: string };

export interface RecordedRequest { body: any; headers: IncomingMessage['headers']; aborted: boolean; completed: boolean }

const MODEL = 'gpt-4o-mini';
let created = 1756700000;

/** One chat.completion.chunk with the given delta of choice 0. */
export function chunk(delta: Record<string, unknown>, finishReason: string | null = null): FakeEvent {
  return { data: { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: created++, model: MODEL, choices: [{ index: 0, delta, finish_reason: finishReason }], usage: null } };
}

const usage: FakeEvent = { data: { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created, model: MODEL, choices: [], usage: { prompt_tokens: 412, completion_tokens: 19, total_tokens: 431 } } };
const done: FakeEvent = { raw: 'data: [DONE]\n\n' };

/** A text reply streamed in the given pieces: role chunk, content deltas, finish "stop", usage, [DONE]. */
export function textReply(pieces: string[], opts: { firstTokenMs?: number; gapMs?: number } = {}): FakeReply {
  const events: FakeEvent[] = [chunk({ role: 'assistant', content: '' })];
  if (opts.firstTokenMs) events.push({ waitMs: opts.firstTokenMs });
  pieces.forEach((p, i) => {
    if (i > 0 && opts.gapMs) events.push({ waitMs: opts.gapMs });
    events.push(chunk({ content: p }));
  });
  events.push(chunk({}, 'stop'), usage, done);
  return { kind: 'stream', events };
}

export interface FakeToolCall { id: string; name: string; arguments: string }

/**
 * Tool calls, optionally after some text: each call's first fragment carries index, id, type and name with empty
 * arguments, then the arguments arrive in `pieces` pieces; finish "tool_calls", usage, [DONE].
 */
export function toolCallReply(calls: FakeToolCall[], opts: { text?: string[]; pieces?: number; sameIndex?: boolean } = {}): FakeReply {
  const events: FakeEvent[] = [chunk({ role: 'assistant', content: opts.text ? '' : null })];
  for (const t of opts.text ?? []) events.push(chunk({ content: t }));
  calls.forEach((c, i) => {
    const index = opts.sameIndex ? 0 : i;
    events.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
    const n = Math.max(1, opts.pieces ?? 3);
    const size = Math.ceil(c.arguments.length / n);
    for (let at = 0; at < c.arguments.length; at += size) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: c.arguments.slice(at, at + size) } }] }));
    }
  });
  events.push(chunk({}, 'tool_calls'), usage, done);
  return { kind: 'stream', events };
}

export const rateLimited = (retryAfter: Record<string, string> = { 'retry-after': '0' }): FakeReply =>
  ({ kind: 'error', status: 429, headers: retryAfter, body: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } } });
export const serverError = (status = 500, headers: Record<string, string> = {}): FakeReply =>
  ({ kind: 'error', status, headers, body: { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } } });

export interface FakeChatServer {
  baseUrl: string;
  requests: RecordedRequest[];
  /** replies for the next requests, in order; when empty, `fallbackReply` answers */
  replies: FakeReply[];
  fallbackReply: FakeReply;
  /** answers a request from its body instead of the queue (checked first) */
  responder?: (body: any, n: number) => FakeReply | undefined;
  close(): Promise<void>;
}

export async function startFakeChat(opts: { apiKey?: string } = {}): Promise<FakeChatServer> {
  const apiKey = opts.apiKey ?? 'sk-test-fake';
  const sockets = new Set<import('node:net').Socket>();
  const fake: FakeChatServer = {
    baseUrl: '', requests: [], replies: [], fallbackReply: textReply(['Okay.']),
    close: () => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('error', () => {});
    req.on('end', () => { void answer(req, res, raw); });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); s.on('error', () => {}); });

  async function answer(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    res.on('error', () => {});
    // List models: GET /v1/models, Bearer; the answer is a list object of model objects
    if (req.method === 'GET' && req.url === '/v1/models') {
      if (req.headers.authorization !== `Bearer ${apiKey}`) return json(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
      return json(res, 200, { object: 'list', data: [{ id: MODEL, object: 'model', created: 1_700_000_000, owned_by: 'system' }] });
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return json(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
    if (req.headers.authorization !== `Bearer ${apiKey}`) return json(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
    let body: any;
    try { body = JSON.parse(raw); } catch { return json(res, 400, { error: { message: 'invalid JSON body', type: 'invalid_request_error' } }); }
    if (body.stream !== true || typeof body.model !== 'string' || !Array.isArray(body.messages)) {
      return json(res, 400, { error: { message: 'expected model, messages and stream:true', type: 'invalid_request_error' } });
    }
    const rec: RecordedRequest = { body, headers: req.headers, aborted: false, completed: false };
    fake.requests.push(rec);
    const reply = fake.responder?.(body, fake.requests.length) ?? fake.replies.shift() ?? fake.fallbackReply;
    if (reply.kind === 'error') {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body ?? {}));
      rec.completed = true;
      return;
    }
    let cutByUs = false;
    if (reply.kind === 'whole') {
      return json(res, 200, { id: 'chatcmpl-fake', object: 'chat.completion', created: created++, model: MODEL,
        choices: [{ index: 0, message: { role: 'assistant', ...reply.message }, finish_reason: reply.finishReason }], usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } });
    }
    res.on('close', () => { if (!res.writableFinished && !cutByUs) rec.aborted = true; });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    for (const ev of reply.events) {
      if (res.destroyed) return;
      if ('waitMs' in ev) { await new Promise((r) => setTimeout(r, ev.waitMs)); continue; }
      res.write('raw' in ev ? ev.raw : `data: ${JSON.stringify(ev.data)}\n\n`);
    }
    if (reply.cut) { await new Promise((r) => setTimeout(r, 10)); cutByUs = true; res.socket?.destroy(); return; }
    res.end();
    rec.completed = true;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  return fake;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
