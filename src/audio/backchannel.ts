/**
 * Is a transcript a backchannel ("uh huh", "okay", "yeah") rather than an attempt to take the turn?
 * Short (at most 3 words) and made only of acknowledgement tokens.
 */
const WORDS = new Set([
  'uh', 'huh', 'uhhuh', 'uhuh', 'mm', 'mmm', 'hm', 'hmm', 'mhm', 'mmhmm', 'um', 'ah', 'oh',
  'ok', 'okay', 'kay', 'yeah', 'yea', 'yep', 'yup', 'yes', 'right', 'sure', 'alright', 'all',
  'i', 'see', 'got', 'it', 'cool', 'nice', 'great', 'fine', 'good',
]);
const MAX_WORDS = 3;

export function normaliseTranscript(text: string): string[] {
  return text.toLowerCase().replace(/[-\u2010-\u2014]/g, '').replace(/[^a-z' ]+/g, ' ').split(/\s+/).filter(Boolean);
}

export function isBackchannel(text: string): boolean {
  const words = normaliseTranscript(text);
  if (words.length === 0 || words.length > MAX_WORDS) return false;
  // "all" only counts inside "all right"; "i"/"it"/"got"/"see" only in "i see" / "got it".
  const joined = words.join(' ');
  if (/\ball\b(?! right)|^(i|it|got)$/.test(joined)) return false;
  return words.every((w) => WORDS.has(w) || (w === 'right' && joined.includes('all right')));
}
