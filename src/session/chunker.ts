/**
 * Streamed dialog text -> whole sentences for speech synthesis, so the caller hears the first sentence while
 * the rest is still being generated. A sentence ends at . ! ? … or the Indic danda । ॥ once the next character
 * shows it really ended (white space: "3.5" and "e.g.," do not end one), or at a line break. Abbreviations and
 * initials ("Dr. Rao", "A. P. J.") do not end a sentence. Survives text split anywhere across pushes.
 */
const ENDERS = new Set(['.', '!', '?', '…', '।', '॥']);
const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'jr', 'sr', 'vs', 'etc', 'eg', 'ie', 'no', 'rs', 'approx', 'dept', 'inc', 'ltd', 'co']);
/** A sentence shorter than this is spoken together with the next ("Sure." alone makes a choppy first chunk). */
const DEFAULT_MIN_CHARS = 8;

export class SentenceChunker {
  #buf = '';
  constructor(private readonly minChars = DEFAULT_MIN_CHARS) {}

  push(text: string): string[] {
    this.#buf += text;
    const out: string[] = [];
    let from = 0;
    for (let i = 0; i < this.#buf.length - 1; i++) {
      const c = this.#buf[i];
      const next = this.#buf[i + 1];
      const lineBreak = c === '\n';
      if (!lineBreak && !(ENDERS.has(c) && /[\s"'”’)\]]/.test(next))) continue;
      let end = i + 1;
      while (end < this.#buf.length && /["'”’)\]]/.test(this.#buf[end])) end++; // closing quotes belong to the sentence
      if (end === this.#buf.length) break; // need one more character to know
      const candidate = this.#buf.slice(from, end).trim();
      if (!lineBreak && (c === '.' && endsWithAbbreviation(candidate))) continue;
      if (candidate.length < this.minChars && !lineBreak) continue;
      if (candidate) out.push(candidate);
      from = end;
      i = end - 1;
    }
    this.#buf = this.#buf.slice(from);
    return out;
  }

  /** The rest, once the text is complete (undefined if only white space is left). */
  flush(): string | undefined {
    const rest = this.#buf.trim();
    this.#buf = '';
    return rest || undefined;
  }
}

function endsWithAbbreviation(sentence: string): boolean {
  const m = /(?:^|[\s(])([\p{L}.]+)\.$/u.exec(sentence);
  if (!m) return false;
  const word = m[1].toLowerCase().replace(/\./g, '');
  return ABBREVIATIONS.has(word) || /^\p{Lu}$/u.test(m[1]); // "Dr." or an initial "A."
}
