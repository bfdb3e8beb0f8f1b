/**
 * Pure extractors over what the caller said (already lower-level text from speech-to-text). Each returns
 * undefined when the answer does not contain the thing asked, which the engine counts as a failed attempt.
 */

const NAME_PREFIX = /\b(?:my name is|my name's|name is|this is|i am|i'm|it's|it is|call me|speaking)\s+(.+)$/i;
const NOT_A_NAME = /\b(not|interested|busy|sorry|what|who|why|looking|calling|human|person|agent|manager)\b/i;

/** "My name is Anna Lee." -> "Anna Lee"; a bare one-to-three-word answer is taken as the name. */
export function extractName(text: string): string | undefined {
  const clean = text.trim().replace(/[.!?,]+$/g, '');
  const m = NAME_PREFIX.exec(clean);
  const candidate = (m ? m[1] : clean).replace(/[^\p{L}\p{M}' -]+/gu, ' ').replace(/\s+(?:speaking|here)$/i, '')
    .replace(/\s+/g, ' ').trim();
  const words = candidate.split(' ').filter(Boolean);
  if (words.length === 0 || words.length > 3 || NOT_A_NAME.test(candidate)) return undefined;
  return words.map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');
}

const INTENT_PREFIX = /^(?:(?:yes|yeah|well|so|um|uh|ok|okay)[, ]+)*(?:i am|i'm|we are|we're|i|we)?\s*(?:am\s+)?(?:looking for|interested in|want|would like|need|searching for|after)\s+/i;

/** "I am looking for a two bedroom apartment." -> "a two bedroom apartment". Needs at least two words of substance. */
export function extractIntent(text: string): string | undefined {
  const clean = text.trim().replace(/[.!?]+$/g, '');
  // a request riding along ("…, can you send me the brochure?") is not part of the intent
  const stripped = clean.replace(INTENT_PREFIX, '').replace(/\b(?:can you|could you|please|send me|and send)\b.*$/i, '').trim()
    .replace(/[,;.!?]+$/, '');
  if (stripped.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length < 2) return undefined;
  if (/^(?:i don'?t know|not sure|no idea|nothing)\b/i.test(stripped)) return undefined;
  return stripped;
}

const UNIT = '(?:k|thousand|lakhs?|lacs?|crores?|million|mn|m|billion|bn)';
const CURRENCY_WORD = '(?:dollars?|usd|rupees?|inr|rs\\.?|euros?|eur|pounds?|gbp|aed|dirhams?)';
const BUDGET_RE = new RegExp(
  `(?:[$€£₹]\\s*)?\\d[\\d,]*(?:\\.\\d+)?(?:\\s*${UNIT}\\b)?(?:\\s*${CURRENCY_WORD}(?![a-z]))?`, 'gi');
const UNIT_OR_CURRENCY = new RegExp(`[$€£₹]|${UNIT}\\b|${CURRENCY_WORD}`, 'i');

/**
 * "around 400,000 dollars" -> "400,000 dollars"; "50 lakh" -> "50 lakh". The first amount with a unit or
 * currency wins ("between 300 and 400 thousand" -> "400 thousand"); otherwise a number of 3+ digits.
 */
export function extractBudget(text: string): string | undefined {
  const amounts = [...text.matchAll(BUDGET_RE)].map((m) => m[0].trim().replace(/[.,]+$/, ''));
  return amounts.find((a) => UNIT_OR_CURRENCY.test(a)) ?? amounts.find((a) => a.replace(/[^\d]/g, '').length >= 3);
}

export const ESCALATION_RE = /\b(human|manager|real person|live person|(?<!estate )agent|(?:to|with) (?:someone|somebody)|representative|supervisor|operator)\b/i;
const BROCHURE_RE = /\b(brochure|send (?:me )?(?:the |some )?(?:details|information|info)|more details|more information|whatsapp me|message me)\b/i;
const DECLINE_RE = /\b(not interested|no thanks|no thank you|stop calling|do not call|don't call|remove my number|wrong number)\b/i;
const GOODBYE_RE = /^(?:ok(?:ay)?[, ]+)?(?:bye|goodbye|good bye)\b/i;

export const wantsHuman = (text: string) => ESCALATION_RE.test(text);
export const wantsBrochure = (text: string) => BROCHURE_RE.test(text);
export const declines = (text: string) => DECLINE_RE.test(text) || GOODBYE_RE.test(text.trim());

/** Points per field for the qualification score; custom qualify fields weigh 10. */
const FIELD_WEIGHTS: Record<string, number> = { customer_name: 15, intent: 25, budget: 30, scheduled_slot: 30 };

/** 0-100: share of the script's weighted fields that were gathered (fields outside the script do not count). */
export function qualificationScore(scriptFields: string[], extracted: Record<string, string | number>): number {
  const fields = [...new Set(scriptFields.filter((f) => f !== 'qualification_score'))];
  const total = fields.reduce((n, f) => n + (FIELD_WEIGHTS[f] ?? 10), 0);
  if (total === 0) return 0;
  const got = fields.reduce((n, f) => n + (extracted[f] !== undefined && extracted[f] !== '' ? FIELD_WEIGHTS[f] ?? 10 : 0), 0);
  return Math.round((100 * got) / total);
}
