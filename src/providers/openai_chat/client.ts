/**
 * A small Chat Completions client over fetch: POST {baseUrl}/chat/completions with stream:true, the SSE body
 * decoded into chunks. Retries follow the provider's rules (429, 408, 409, 5xx and connection errors;
 * x-should-retry overrides; retry-after-ms, then retry-after, else 0.5 s·2ⁿ with jitter), but only before the
 * stream carried anything, only a few times, and never for a wait longer than a caller can bear in silence
 * (maxRetryWaitMs): the dialog's fallback answers faster than a long back-off. Once text has flowed a failure ends
 * the stream. Cancellation goes into fetch, so an abort closes the HTTP response.
 */
import { AdapterError } from '../../adapters/types.js';
import { sleep } from '../../adapters/deadline.js';
import { SseDecoder } from './sse.js';

export interface WireToolCall { id: string; type: 'function'; function: { name: string; arguments: string } }
export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };
export interface ChatTool { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }
export interface ToolCallDelta { index?: number; id?: string; type?: string; function?: { name?: string; arguments?: string } }
/** One chat.completion.chunk, every field optional: local servers leave some out. */
export interface ChatChunk {
  choices?: Array<{ index?: number; delta?: { content?: string | null; tool_calls?: ToolCallDelta[] | null }; finish_reason?: string | null }>;
  usage?: Record<string, number> | null;
}

export interface ChatClientOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** retries of one request before its stream started (default 2, as the openai package) */
  maxRetries?: number;
  /** a retry whose wait would be longer than this is not made (default 2000 ms) */
  maxRetryWaitMs?: number;
  /** told about skipped malformed chunks (logs) */
  warn?: (msg: string) => void;
}

const RETRY_STATUSES = new Set([408, 409, 429]);

export class ChatCompletionsClient {
  readonly #url: string;
  constructor(private readonly o: ChatClientOptions) {
    this.#url = `${o.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  }

  /**
   * The chunks of one streamed completion. Only fields every OpenAI-compatible server accepts are sent (no
   * tool_choice, stream_options, token limit or temperature: some local servers and reasoning models refuse them).
   */
  async *stream(req: { messages: ChatMessage[]; tools?: ChatTool[] }, signal?: AbortSignal): AsyncGenerator<ChatChunk> {
    const body = JSON.stringify({ model: this.o.model, messages: req.messages, stream: true, ...(req.tools?.length ? { tools: req.tools } : {}) });
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
    if (this.o.apiKey) headers.authorization = `Bearer ${this.o.apiKey}`;
    const maxRetries = this.o.maxRetries ?? 2;
    for (let attempt = 0; ; attempt++) {
      const canRetry = (waitMs: number) => attempt < maxRetries && waitMs <= (this.o.maxRetryWaitMs ?? 2000);
      let res: Response;
      try {
        res = await fetch(this.#url, { method: 'POST', headers, body, signal });
      } catch (err) {
        if (signal?.aborted) throw canceled();
        const wait = backoffMs(attempt);
        if (canRetry(wait)) { await pause(wait, signal); continue; }
        throw new AdapterError('dialog', 'unavailable', `dialog model unreachable: ${(err as Error).message}`);
      }
      if (!res.ok) {
        const detail = await errorDetail(res);
        const wait = retryWaitMs(res.headers, attempt);
        if (shouldRetry(res) && canRetry(wait)) { await pause(wait, signal); continue; }
        const code = res.status === 429 || res.status >= 500 || res.status === 408 ? 'unavailable' : 'failed';
        throw new AdapterError('dialog', code, `dialog model answered ${res.status}${detail ? `: ${detail}` : ''}`);
      }
      if (/application\/json/i.test(res.headers.get('content-type') ?? '')) {
        // a server that ignored stream:true answered with the whole completion: read it as one chunk
        yield completionAsChunk(await res.json().catch(() => undefined));
        return;
      }
      let started = false;
      try {
        for await (const chunk of this.#chunks(res)) {
          started ||= carriesOutput(chunk);
          yield chunk;
        }
        return;
      } catch (err) {
        if (signal?.aborted) throw canceled();
        if (err instanceof AdapterError) throw err;
        const wait = backoffMs(attempt);
        if (!started && canRetry(wait)) { await pause(wait, signal); continue; }
        throw new AdapterError('dialog', started ? 'failed' : 'unavailable', `dialog stream broke: ${(err as Error).message}`);
      }
    }
  }

  async *#chunks(res: Response): AsyncGenerator<ChatChunk> {
    if (!res.body) throw new AdapterError('dialog', 'failed', 'dialog model answered without a body');
    const reader = res.body.getReader();
    const sse = new SseDecoder();
    let finished = false;
    let malformed = 0; // logged once per stream: a server sending garbage must not flood the log
    try {
      for (;;) {
        const { done, value } = await reader.read();
        for (const ev of done ? sse.end() : sse.push(value)) {
          const data = ev.data.trim();
          if (data.startsWith('[DONE]')) return;
          const chunk = parseChunk(data);
          if (!chunk) { if (malformed++ === 0) this.o.warn?.('dialog model sent a malformed chunk: skipped'); continue; }
          if ('error' in chunk && chunk.error) {
            const msg = (chunk.error as { message?: unknown }).message;
            throw new AdapterError('dialog', 'failed', `dialog model stream error${typeof msg === 'string' ? `: ${msg.slice(0, 200)}` : ''}`);
          }
          if (chunk.choices?.some((c) => c.finish_reason)) finished = true;
          yield chunk;
        }
        if (done) break;
      }
      // a server that stops without [DONE] has still answered if it gave a finish_reason; otherwise it was cut
      if (!finished) throw new Error('the stream ended before the completion finished');
    } finally {
      reader.cancel().catch(() => {});
    }
  }
}

const canceled = () => new AdapterError('dialog', 'canceled', 'dialog call canceled');

/** The retry wait, ended by an abort as a cancellation. */
async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  try { await sleep(ms, signal); } catch { throw canceled(); }
}

/** A non-streamed chat.completion as the one chunk that says the same (content, tool calls, finish_reason). */
function completionAsChunk(body: unknown): ChatChunk {
  const choice = (body as { choices?: Array<{ message?: { content?: string | null; tool_calls?: WireToolCall[] }; finish_reason?: string }> } | undefined)?.choices?.[0];
  if (!choice?.message) throw new AdapterError('dialog', 'failed', 'dialog model answered JSON that is not a completion');
  const calls = (choice.message.tool_calls ?? []).map((c, index) => ({ index, id: c.id, type: c.type, function: c.function }));
  return { choices: [{ index: 0, delta: { content: choice.message.content ?? null, tool_calls: calls }, finish_reason: choice.finish_reason ?? 'stop' }] };
}

function parseChunk(data: string): (ChatChunk & { error?: unknown }) | undefined {
  try {
    const v: unknown = JSON.parse(data);
    return v && typeof v === 'object' && !Array.isArray(v) ? v as ChatChunk : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a chunk said something (text or a tool call): after it, a broken stream is no longer retried. */
function carriesOutput(chunk: ChatChunk): boolean {
  return chunk.choices?.some((c) => Boolean(c.delta?.content) || Boolean(c.delta?.tool_calls?.length)) ?? false;
}

function shouldRetry(res: Response): boolean {
  const header = res.headers.get('x-should-retry');
  if (header === 'true') return true;
  if (header === 'false') return false;
  return RETRY_STATUSES.has(res.status) || res.status >= 500;
}

/** The provider's requested wait (retry-after-ms, then retry-after in seconds or as an HTTP date), else back-off. */
export function retryWaitMs(headers: Headers, attempt: number, nowMs = Date.now()): number {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers.get('retry-after');
  if (after) {
    const seconds = Number.parseFloat(after);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const at = Date.parse(after);
    if (!Number.isNaN(at)) return Math.max(0, at - nowMs);
  }
  return backoffMs(attempt);
}

/** 0.5 s·2ⁿ capped at 8 s, less up to 25 % jitter (the openai package's schedule). */
export const backoffMs = (attempt: number) => Math.min(500 * 2 ** attempt, 8000) * (1 - Math.random() * 0.25);

async function errorDetail(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const msg = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    // OpenAI's 401 quotes the key it got, half masked: none of it goes into errors or logs
    if (typeof msg === 'string') return msg.replace(/\b(sk|key)-[\w*.-]+/gi, '[redacted]').slice(0, 200);
  } catch { /* not JSON: no detail */ }
  return '';
}
