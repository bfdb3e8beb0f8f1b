/**
 * A small Chat Completions client over fetch: POST {baseUrl}/chat/completions with stream:true, the SSE body
 * decoded into chunks. Retries follow the provider's rules (src/providers/http/openai.ts), but only before the
 * stream carried anything, only a few times, and never for a wait longer than a caller can bear in silence
 * (maxRetryWaitMs): the dialog's fallback answers faster than a long back-off. Once text has flowed a failure ends
 * the stream. Cancellation goes into fetch, so an abort closes the HTTP response.
 */
import { AdapterError } from '../../adapters/types.js';
import { openAiFailure, openAiUnreachable } from '../http/openai.js';
import { nextRetryMs, pause } from '../http/retry.js';
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
    const policy = { attempts: (this.o.maxRetries ?? 2) + 1, maxWaitMs: this.o.maxRetryWaitMs ?? 2000, signal };
    const endpoint = { adapter: 'dialog' as const, what: 'dialog model', apiKey: this.o.apiKey };
    /** the wait before trying again after `failure`, or the failure thrown when the policy says stop */
    const again = async (failure: AdapterError, attempt: number) => {
      const wait = nextRetryMs(failure, attempt, policy);
      if (wait === undefined) throw failure;
      await pause(wait, signal, canceled);
    };
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(this.#url, { method: 'POST', headers, body, signal });
      } catch (err) {
        if (signal?.aborted) throw canceled();
        await again(openAiUnreachable(endpoint, err), attempt);
        continue;
      }
      if (!res.ok) {
        await again(await openAiFailure(endpoint, res), attempt);
        continue;
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
        // once text has flowed a retry would say it twice: the break is final
        await again(new AdapterError('dialog', started ? 'failed' : 'unavailable', `dialog stream broke: ${(err as Error).message}`, !started), attempt);
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
