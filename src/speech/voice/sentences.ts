/** Splits a reply into sentences, the unit the offline voice renders and streams (like the live voices' chunks). */
const MAX_SENTENCE_CHARS = 300;

export function sentences(text: string): string[] {
  const parts = text.match(/[^.!?…;]+(?:[.!?…;]+|$)/g) ?? [];
  const out: string[] = [];
  for (const p of parts.map((s) => s.trim()).filter(Boolean)) {
    // a run-on sentence is cut at word boundaries so the first audio never waits for a long render
    let rest = p;
    while (rest.length > MAX_SENTENCE_CHARS) {
      const cut = rest.lastIndexOf(' ', MAX_SENTENCE_CHARS);
      const at = cut > 0 ? cut : MAX_SENTENCE_CHARS;
      out.push(rest.slice(0, at).trim());
      rest = rest.slice(at).trim();
    }
    if (rest) out.push(rest);
  }
  return out;
}
