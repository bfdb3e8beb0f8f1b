/**
 * An agent's knowledge base: question/answer pairs or short facts, answered by BM25 over their words (no model).
 * A handful of entries per agent, so the index is built per turn; words are lower-cased, stripped of stop words
 * and of a plural "s", which is enough to match "Is there parking?" to "Parking: two covered spaces per flat".
 */

export interface KnowledgeEntry {
  /** what a caller would ask ("Is there parking?"); absent for a plain fact */
  question?: string;
  /** what the agent says */
  answer: string;
}

/** Limits on what an agent may hold (PUT/PATCH refuse more). */
export const KNOWLEDGE_LIMITS = { entries: 50, questionChars: 300, answerChars: 1000 } as const;

const STOP = new Set(['a', 'an', 'the', 'is', 'are', 'was', 'were', 'be', 'do', 'does', 'did', 'you', 'your', 'i', 'me', 'my', 'we',
  'our', 'us', 'to', 'of', 'for', 'in', 'on', 'at', 'it', 'its', 'this', 'that', 'there', 'what', 'which', 'how', 'when', 'where',
  'who', 'why', 'can', 'could', 'would', 'will', 'should', 'have', 'has', 'any', 'and', 'or', 'with', 'about', 'tell', 'please',
  'so', 'also', 'much', 'many', 'some', 'if', 'from', 'by', 'get', 'know', 'like', 'want', 'just', 'there', 'am', 'here', 'hi',
  'hello', 'okay', 'ok', 'um', 'uh', 'yes', 'no', 'not', 'they', 'them', 'he', 'she']);

export function terms(text: string): string[] {
  return text.toLowerCase().replace(/[^\p{L}\p{N}\s]+/gu, ' ').split(/\s+/)
    .filter((w) => w && !STOP.has(w)).map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

/** The best entry for a caller's words, or undefined when no entry shares a meaningful word with them. */
export function lookupKnowledge(entries: KnowledgeEntry[] | undefined, query: string): KnowledgeEntry | undefined {
  if (!entries?.length) return undefined;
  const q = [...new Set(terms(query))];
  if (q.length === 0) return undefined;
  // the question is weighted twice: it is what the operator expects callers to ask
  const docs = entries.map((e) => [...terms(e.question ?? ''), ...terms(e.question ?? ''), ...terms(e.answer)]);
  const avg = docs.reduce((n, d) => n + d.length, 0) / docs.length || 1;
  const df = new Map<string, number>();
  for (const d of docs) for (const w of new Set(d)) df.set(w, (df.get(w) ?? 0) + 1);
  const k1 = 1.2, b = 0.75, n = docs.length;
  let best: { i: number; score: number } | undefined;
  docs.forEach((d, i) => {
    let score = 0;
    for (const w of q) {
      const tf = d.filter((x) => x === w).length;
      if (!tf) continue;
      const idf = Math.log(1 + (n - df.get(w)! + 0.5) / (df.get(w)! + 0.5));
      score += idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * d.length) / avg)));
    }
    if (score > 0 && (!best || score > best.score)) best = { i, score };
  });
  return best && entries[best.i];
}
