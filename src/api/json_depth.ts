/**
 * How deep a JSON text nests, found by one pass over its raw UTF-8 bytes before it is parsed: every walk over a
 * parsed body (the unstorable-string check, zod, our own code) then meets at most MAX_JSON_DEPTH levels. A 200 KB
 * body of brackets is 100,000 levels deep; no body of this API needs more than a handful.
 */
import { ApiError } from '../errors.js';

/** Arrays and objects inside each other, counting the outermost; deeper bodies are refused (400). */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22, BACKSLASH = 0x5c, OPEN_ARRAY = 0x5b, CLOSE_ARRAY = 0x5d, OPEN_OBJECT = 0x7b, CLOSE_OBJECT = 0x7d;

/**
 * The index of the first byte that opens level `max + 1`, or -1 when the text never nests deeper than `max`.
 * Brackets inside strings do not count; a string is skipped with indexOf (memchr) to its next quote, and a quote
 * preceded by an odd run of backslashes is escaped. Each byte is looked at a bounded number of times: linear.
 * Malformed JSON is not judged here (the parser does that); only its depth is.
 */
export function depthExceeded(buf: Uint8Array, max = MAX_JSON_DEPTH): number {
  let depth = 0;
  const n = buf.length;
  for (let i = 0; i < n; i++) {
    const b = buf[i];
    if (b === QUOTE) {
      i = closingQuote(buf, i + 1);
      if (i === -1) return -1; // an unterminated string: the parser refuses it
    } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > max) return i;
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
      depth--;
    }
  }
  return -1;
}

/** The index of the quote that ends a string whose content starts at `from`; -1 when there is none. */
function closingQuote(buf: Uint8Array, from: number): number {
  let at = from;
  for (;;) {
    const q = buf.indexOf(QUOTE, at);
    if (q === -1) return -1;
    let backslashes = 0;
    for (let j = q - 1; j >= from && buf[j] === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return q;
    at = q + 1;
  }
}

/** Throws 400 validation_failed when `buf` nests deeper than MAX_JSON_DEPTH. */
export function refuseDeepJson(buf: Uint8Array, max = MAX_JSON_DEPTH): void {
  const at = depthExceeded(buf, max);
  if (at === -1) return;
  const message = `nested deeper than ${max} levels of arrays and objects (at byte ${at})`;
  throw new ApiError('validation_failed', `invalid body: ${message}`, { fields: [{ path: 'body', message }] });
}
