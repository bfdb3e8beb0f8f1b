import { findBudget, formatAmount } from './amounts.js';

/**
 * Pure extractors over what the caller said (already lower-level text from speech-to-text). Each returns
 * undefined when the answer does not contain the thing asked, which the engine counts as a failed attempt.
 */

const NAME_PREFIX = /\b(?:my name is|my name's|(?<!\b(?:her|his|their|wife's|husband's|son's|daughter's) )name is|this is|i am|i'm|it's|it is|call me|speaking)\s+(.+)$/i;
/** prefixes that name the speaker whatever was asked ("Hi, my name is Anita Rao") */
const EXPLICIT_NAME_PREFIX = /\b(?:my name is|my name's|name's|call me)\s+(.+)$/i;
/** prefixes that name the speaker only when a name-like word follows ("I'm Anita", not "I'm fine") */
const SOFT_NAME_PREFIX = /\b(?:this is|i am|i'm)\s+(.+)$/i;
const NOT_A_NAME = /\b(not|interested|busy|sorry|what|who|why|looking|calling|human|person|agent|manager)\b/i;
/** words a name does not start with (articles, states, fillers): "a villa", "fine", "here" */
const NOT_NAME_START = new Set(['a', 'an', 'the', 'my', 'our', 'some', 'any', 'fine', 'good', 'great', 'ok', 'okay', 'well', 'here',
  'there', 'sure', 'yes', 'yeah', 'no', 'just', 'so', 'very', 'really', 'also', 'still', 'back', 'ready', 'free', 'available', 'happy',
  'glad', 'from', 'in', 'at', 'on', 'with', 'driving', 'home', 'working', 'going', 'trying', 'thinking', 'planning', 'asking',
  'wondering', 'new', 'single', 'married', 'retired', 'around', 'about', 'maybe', 'probably', 'hoping', 'fed', 'tired', 'alright',
  // pronouns, prepositions and words of time: "it is for my son", "next week sometime"
  'it', 'this', 'that', 'me', 'him', 'her', 'them', 'us', 'for', 'to', 'of', 'by', 'after', 'before', 'next', 'last', 'sometime',
  'later', 'today', 'tomorrow', 'tonight']);
/** where a name ends inside a longer sentence: punctuation, "and", "but", a second clause */
const NAME_END = /\s*(?:[,;:.!?]|\s(?:and|but|so|from|calling|i'm|i am|i|we|looking|speaking|here)\b).*$/i;

function asName(candidate: string): string | undefined {
  const clean = candidate.replace(/[^\p{L}\p{M}' -]+/gu, ' ').replace(/\s+(?:speaking|here)$/i, '').replace(/\s+/g, ' ').trim();
  const words = clean.split(' ').filter(Boolean);
  if (words.length === 0 || words.length > 3 || NOT_A_NAME.test(clean) || NOT_NAME_START.has(words[0].toLowerCase())) return undefined;
  return words.map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');
}

/** "My name is Anna Lee." -> "Anna Lee"; a bare one-to-three-word answer is taken as the name (the question asked for it). */
export function extractName(text: string): string | undefined {
  const clean = text.trim().replace(/[.!?,]+$/g, '');
  const m = NAME_PREFIX.exec(clean);
  return asName(m ? m[1].replace(NAME_END, '') : clean);
}

/**
 * A name the caller gave without being asked: only after "my name is", "call me", or "I'm"/"this is" followed
 * by a word that can start a name ("Hi, my name is Anita Rao and I need a flat" -> "Anita Rao").
 */
export function extractStatedName(text: string): string | undefined {
  const clean = text.trim();
  const explicit = EXPLICIT_NAME_PREFIX.exec(clean);
  if (explicit) return asName(explicit[1].replace(NAME_END, ''));
  const soft = SOFT_NAME_PREFIX.exec(clean);
  return soft ? asName(soft[1].replace(NAME_END, '')) : undefined;
}

const INTENT_PREFIX = /^(?:(?:yes|yeah|well|so|um|uh|ok|okay)[, ]+)*(?:i am|i'm|we are|we're|i|we)?\s*(?:am\s+)?(?:looking for|interested in|want|would like|'d like|need|searching for|after|prefer|thinking (?:of|about))\s+/i;
/**
 * An answer that, once its lead is gone, still opens with a subject ("I had pasta for dinner", "My daughter starts
 * school", "The kitchen needs paint") is a sentence about something else; a need is a thing ("a villa near the
 * metro", "something in the city centre").
 */
const A_CLAUSE = /^(?:(?:i|i'm|i've|i'd|i'll|we|we're|we've|you|he|she|they|it|it's|my|our|his|her|their|sorry|hang on|hold on|wait)\b|the \w+(?: \w+)? (?:is|was|were|are|has|had|have|needs?|went|got)\b)/i;

/** "Karan here", "Vikram speaking", with a greeting before: a caller naming themselves without a lead */
const NAME_HERE = /^(?:(?:hi|hello|hey)[, ]+)?[\p{L}'-]+(?: [\p{L}'-]+)? (?:here|speaking)$/iu;

/** a name given, the caller's or another's ("her name is Priya") */
const NAMES_SOMEONE = /\bname(?: is|'s)\b/i;
/** only a go-ahead: "sure, go ahead", "okay please" */
const GO_AHEAD = /^(?:(?:yes|yeah|sure|ok(?:ay)?|alright|fine|go ahead|please|carry on|tell me)[\s,]*)+$/i;
/** a stall or a no: "hmm, let me think", "not sure", "I already bought one" */
const STALL = /^(?:(?:hmm+|um+|uh+|well)[,\s]+)*(?:i don'?t know|not sure|no idea|nothing|let me think|i(?:'ll| will| need to) think|i already (?:bought|have|own))\b/i;
/** words of when, and words of what: an answer with the first and none of the second tells when, not what */
const WHEN_WORDS = /\b(?:today|tomorrow|tonight|week|weekend|month|year|mornings?|afternoons?|evenings?|nights?|sometime|later|soon|after|before|till|until|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/i;
const WHAT_WORDS = /\b(?:flat|apartment|villa|house|home|plot|land|office|shop|penthouse|studio|bungalow|duplex|bhk|bedrooms?|rooms?|property|space|floor|building|unit|condo|farmhouse|warehouse|commercial|residential|rent|buy|invest(?:ment)?)\b/i;

/**
 * "I am looking for a two bedroom apartment." -> "a two bedroom apartment". Needs at least two words of substance. Not
 * a need: a caller introducing themselves ("My name is Karan", "Karan here") or someone else ("her name is Priya"), a
 * go-ahead ("Sure, go ahead"), or when rather than what ("Maybe after Diwali", "Next week sometime").
 */
export function extractIntent(text: string): string | undefined {
  const clean = text.trim().replace(/[.!?]+$/g, '');
  if (extractStatedName(clean) !== undefined || NAME_HERE.test(clean) || NAMES_SOMEONE.test(clean) || GO_AHEAD.test(clean)) return undefined;
  if (WHEN_WORDS.test(clean) && !WHAT_WORDS.test(clean)) return undefined;
  // a request or thanks riding along ("…, can you send me the brochure?", "a villa, thank you") is not part of the intent
  const stripped = clean.replace(INTENT_PREFIX, '').replace(/\b(?:can you|could you|please|send me|and send|thank you|thanks)\b.*$/i, '').trim()
    .replace(/[,;.!?]+$/, '');
  const need = asNeed(stripped);
  if (isNeed(need)) return need;
  // "We are two people, a small flat is fine": the one clause that names a thing
  const things = stripped.split(/\s*[,;]\s*/).filter((c) => WHAT_WORDS.test(c));
  const thing = things.length === 1 ? asNeed(things[0].replace(INTENT_PREFIX, '')) : '';
  return isNeed(thing) ? thing : undefined;
}

/** words with a letter in them ("a 3 BHK flat" has three) */
const wordCount = (s: string): number => s.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length;

/** a need is a thing of at least two words, not a sentence about something else nor a stall */
const isNeed = (need: string): boolean => wordCount(need) >= 2 && !A_CLAUSE.test(need) && !STALL.test(need);

/** what is said about a thing, with its price and its acceptance ("… is fine") left out */
const asNeed = (said: string): string => withoutPrice(said).replace(ACCEPTANCE, '');

/** a need's acceptance after it: "a small flat is fine", "a villa would do", "a plot works for us" */
const ACCEPTANCE = /\s+(?:(?:is|would be|will be|should be)\s+(?:fine|ok(?:ay)?|good|enough|great|perfect)|(?:would|will) do|works(?: for (?:me|us))?)$/i;

/** the words that lead into a price inside a need: "… with a budget of around", "… for", "… in the range of" */
const PRICE_LEAD = /(?:[\s,]*\b(?:with|for|at|in|of|within|and|a|the|budget|range|around|about|under|below|upto|up|to|less|than|not|more|max|maximum|costing|priced|roughly|approximately|nearly|between|only)\b)*[\s,]*$/i;

/**
 * A need with its price said in it, the price cut off: "a villa for 80 lakh" -> "a villa", "around fifty lakh, a villa"
 * -> "a villa", "something around fifty lakh" -> "something" (which is then no need), "one crore is my limit" -> "".
 * Only a price (a scale or a currency) cuts: "a 3 BHK flat" stays whole.
 */
function withoutPrice(need: string): string {
  const price = findBudget(need);
  if (!price || !(price.scaled || price.currency)) return need;
  const before = need.slice(0, price.at).replace(PRICE_LEAD, '').trim();
  const after = need.slice(price.at + price.raw.length).replace(/^(?:[\s,;]+|\b(?:and|only|for)\b)*/i, '').trim();
  return before || (WHAT_WORDS.test(after) ? after : '');
}

const STATED_INTENT = /\b(?:looking for|interested in|searching for|want(?! to (?:speak|talk))|would like(?! to (?:speak|talk))|need)\s+(.+)$/i;
/** where a stated intent ends: punctuation, or a budget, a request, thanks or a new clause riding along */
const INTENT_END = /\s*(?:[;.!?]|,\s*(?:and\s+)?(?:my|our|the|i|we|can|could|please|budget|around|about|under|next|this|tomorrow|today|on)\b|\s(?:with|and)\s+(?:a\s+|my\s+|our\s+)?budget\b|\s(?:my|our)\s+budget\b|\s(?:and\s+)?(?:can|could) you\b|\sand\s+(?:my|i|we)\b|\s(?:thank you|thanks|please)\b).*$/i;

/** An intent said without being asked: the object of "looking for", "interested in", "want", "need"… */
export function extractStatedIntent(text: string): string | undefined {
  const m = STATED_INTENT.exec(text.trim());
  if (!m) return undefined;
  const object = withoutPrice(m[1].replace(INTENT_END, '').replace(/[,;.!?]+$/, '').trim());
  if (wordCount(object) < 2 || BROCHURE_RE.test(object) || ESCALATION_RE.test(object)) return undefined;
  return object;
}

/**
 * "around 400,000 dollars" -> "400,000 dollars"; "50 lakh" -> "50 lakh"; "eighty lakh" -> "eighty lakh": the words
 * of the budget as said (amounts.ts reads them). The first amount with a scale or currency wins ("between 300 and
 * 400 thousand" -> "400 thousand"); otherwise one of at least 100.
 */
export function extractBudget(text: string): string | undefined {
  return findBudget(text)?.raw.replace(/[.,]+$/, '');
}

/** The budget in its normal form ("8000000 INR", see amounts.ts), or undefined. */
export function extractBudgetAmount(text: string): string | undefined {
  const a = findBudget(text);
  return a && formatAmount(a);
}

/** A budget said without being asked: an amount with a scale or currency, or any amount after "budget"/"spend". */
export function extractStatedBudget(text: string): string | undefined {
  const a = findBudget(text);
  if (!a) return undefined;
  return a.scaled || a.currency || /\b(budget|spend|afford)\b/i.test(text) ? formatAmount(a) : undefined;
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
