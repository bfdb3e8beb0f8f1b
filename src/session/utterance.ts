/**
 * The one place that tells a backchannel ("uh huh", "okay", "yeah") from words that take the turn. The session
 * asks it for a barge-in's transcript, for a caller turn, and for interim words that may settle a barge-in early.
 */
import type { BargeInVerdict } from './events.js';

const WORDS = new Set([
  'uh', 'huh', 'uhhuh', 'uhuh', 'mm', 'mmm', 'hm', 'hmm', 'mhm', 'mmhmm', 'um', 'ah', 'oh',
  'ok', 'okay', 'kay', 'yeah', 'yea', 'yep', 'yup', 'yes', 'right', 'sure', 'alright', 'all',
  'i', 'see', 'got', 'it', 'cool', 'nice', 'great', 'fine', 'good',
]);
/** an acknowledgement is short: "all right, I see" is three words */
const MAX_WORDS = 3;

export function normaliseTranscript(text: string): string[] {
  return text.toLowerCase().replace(/[-\u2010-\u2014]/g, '').replace(/[^\p{L}\p{M}' ]+/gu, ' ').split(/\s+/).filter(Boolean);
}

export function isBackchannel(text: string): boolean {
  const words = normaliseTranscript(text);
  if (words.length === 0 || words.length > MAX_WORDS) return false;
  // "all" only counts inside "all right"; "i"/"it"/"got"/"see" only in "i see" / "got it".
  const joined = words.join(' ');
  if (/\ball\b(?! right)|^(i|it|got)$/.test(joined)) return false;
  return words.every((w) => WORDS.has(w) || (w === 'right' && joined.includes('all right')));
}

export function classifyUtterance(text: string): BargeInVerdict {
  if (normaliseTranscript(text).length === 0) return 'no_words';
  return isBackchannel(text) ? 'backchannel' : 'words';
}

/**
 * Interim words that can no longer turn out to be a backchannel: more words than one has, or a word outside the
 * lexicon. ("all" and "i" are not decisive on their own: "all right", "I see" may follow.)
 */
export function decidesBargeIn(interim: string): boolean {
  const words = normaliseTranscript(interim);
  return words.length > MAX_WORDS || words.some((w) => !WORDS.has(w));
}
