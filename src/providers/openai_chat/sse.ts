/**
 * Incremental Server-Sent Events decoder (the WHATWG event-stream format): bytes in, events out, surviving input
 * split anywhere (inside a line, a CRLF pair or a multi-byte character). Only what Chat Completions streams use is
 * kept: `event` and the `data` lines (joined with "\n"); comments and `id`/`retry` are skipped.
 */

export interface SseEvent { event: string; data: string }

export class SseDecoder {
  readonly #text = new TextDecoder('utf-8');
  #buf = '';
  /** a "\r" ended the last chunk: a "\n" opening the next one belongs to it */
  #pendingCr = false;
  #event = '';
  #data: string[] = [];

  /** Events completed by this chunk (a string is taken as already decoded text). */
  push(chunk: Uint8Array | string): SseEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.#text.decode(chunk, { stream: true });
    if (this.#pendingCr && text) {
      if (text.startsWith('\n')) text = text.slice(1);
      this.#pendingCr = false;
    }
    this.#buf += text;
    const out: SseEvent[] = [];
    let from = 0;
    for (let i = 0; i < this.#buf.length; i++) {
      const c = this.#buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.#line(this.#buf.slice(from, i), out);
      if (c === 13) {
        if (i + 1 === this.#buf.length) this.#pendingCr = true;
        else if (this.#buf.charCodeAt(i + 1) === 10) i++;
      }
      from = i + 1;
    }
    this.#buf = this.#buf.slice(from);
    return out;
  }

  /** The event left unterminated at the end of the stream, if any (servers that omit the last blank line). */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    const rest = this.#buf + this.#text.decode();
    this.#buf = '';
    if (rest) this.#line(rest, out);
    this.#line('', out);
    return out;
  }

  #line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.#data.length) out.push({ event: this.#event || 'message', data: this.#data.join('\n') });
      this.#event = '';
      this.#data = [];
      return;
    }
    if (line.startsWith(':')) return; // comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
  }
}
