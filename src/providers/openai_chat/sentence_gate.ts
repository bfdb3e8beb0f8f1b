/**
 * Holds streamed text back to its last sentence boundary (. ! ? … । ॥ and the white space after, or a line
 * break). The session's chunker waits for the same boundary before it speaks, so this costs no latency; what it
 * buys is that a stream cut mid-sentence leaves no half sentence to be spoken (flush() is only called on a
 * completed stream).
 */
const BOUNDARY = /[.!?…।॥]["'”’)\]]*\s+|\n+/g;

export class SentenceGate {
  #buf = '';

  /** The text that ends on a boundary now, or '' while the sentence is still open. */
  push(text: string): string {
    this.#buf += text;
    let end = 0;
    BOUNDARY.lastIndex = 0;
    for (let m = BOUNDARY.exec(this.#buf); m; m = BOUNDARY.exec(this.#buf)) end = m.index + m[0].length;
    if (end === 0) return '';
    const out = this.#buf.slice(0, end);
    this.#buf = this.#buf.slice(end);
    return out;
  }

  /** The rest of a completed stream. */
  flush(): string {
    const out = this.#buf;
    this.#buf = '';
    return out;
  }
}
