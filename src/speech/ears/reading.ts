/**
 * Turns the recogniser's word path into the text the dialog reads, or rejects it. Garbage phones and hesitations
 * ("um", "uh") are dropped; a turn with no content word left (only garbage and connecting words) is rejected as '' so
 * the agent says it did not catch that instead of recording a value that was never said. Spoken times become the
 * digits the dialog's slot reader takes ("eleven in the morning" -> "11 am", "two p m" -> "2 pm"); "b h k" becomes
 * "bhk", "bed room" "bedroom". A need's place ("a villa near <garbage>") and a name the grammar lacks ("my name is
 * <garbage>") are left out. A path that gives one field two answers ("i'm arjun ... it's shreya", "thirty crore ... a
 * lakh") is rejected too: a caller says a field once in a sentence, and such a row is everyday speech tiled into the
 * grammar's shortest answers. So is a range that falls ("ten to three lakh"): nobody says one, it is a misheard
 * "seventeen lakh".
 */
import { AFFIRMATIVE } from '../../dialog/yes_no.js';
import { GARBAGE_PREFIX, NAME_LEADS, PLACE_LEADS } from './grammar.js';
import { DAY_PARTS, DAY_PARTS_ALONE, FIRST_NAMES, HESITATIONS, HOURS, NUMBER_WORDS, WEEKDAYS } from './vocabulary.js';

/** words that carry nothing by themselves: a turn of only these (and garbage) is rejected */
const EMPTY_WORDS = new Set(['my', 'name', 'is', 'i', 'am', "i'm", 'we', 'need', 'want', 'looking', 'for', 'a', 'an', 'the',
  'about', 'around', 'budget', 'limit', 'maximum', 'and', 'suits', 'me', 'works', 'fine', 'please', 'hello', 'hi', 'here', 'um',
  'uh', 'would', 'like', 'at', 'on', 'it', 'that', 'something', 'approximately', 'up', 'to', "it's", 'this', 'call', "my", "name's", 'in']);

const HESITATION = new Set(HESITATIONS);

export interface Reading {
  text: string;
  /** share of the turn's words that were garbage phones (0..1) */
  garbageShare: number;
  rejected: boolean;
}

/** Most garbage phones a turn may hold per content word before it is rejected as mostly unheard speech. */
export const MAX_GARBAGE_PER_CONTENT_WORD = 3;

export function readPath(path: string): Reading {
  const words = withoutUnheard(path.toLowerCase().split(/\s+/).filter((w) => w && !w.startsWith('<') && !w.startsWith('[')));
  const garbage = words.filter((w) => w.startsWith(GARBAGE_PREFIX)).length;
  const kept = words.filter((w) => !w.startsWith(GARBAGE_PREFIX)).map((w) => w.replace(/\(\d+\)$/, ''))
    .filter((w) => !HESITATION.has(w));
  // a yes in words that carry nothing elsewhere ("that works", "fine") answers a yes/no question
  const content = kept.filter((w) => !EMPTY_WORDS.has(w)).length || (AFFIRMATIVE.test(kept.join(' ')) ? 1 : 0);
  const garbageShare = words.length ? garbage / words.length : 0;
  const rejected = content === 0 || garbage > MAX_GARBAGE_PER_CONTENT_WORD * content || answersOneFieldTwice(kept) || hasFallingRange(kept);
  return { text: rejected ? '' : spokenToText(kept), garbageShare, rejected };
}

/**
 * Most garbage phones a place or an unheard name is left out as: about two seconds of speech (the loop hears 10-12
 * phones a second), a few words. A book sentence in noise was "a studio around <40 phones>", read "a studio".
 */
export const MAX_UNHEARD_PHONES = 24;

/** the leads after which garbage phones are a said thing the grammar cannot spell: a need's place, a name it lacks */
const NAME_LEAD_WORDS = NAME_LEADS.map((l) => l.split(' '));
const UNHEARD_LEADS = [...PLACE_LEADS.map((l) => l.split(' ')), ...NAME_LEAD_WORDS];

/**
 * What the grammar heard as garbage after a lead, left out with its lead: a need's place ("a villa near <garbage>" ->
 * "a villa") and a name the list lacks ("my name is <garbage>" -> ""). Such speech is no answer, nor unheard speech
 * to count against the answers beside it; a turn of only an unheard name is then rejected (no content word).
 */
function withoutUnheard(words: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const lead = words[i].startsWith(GARBAGE_PREFIX) ? leadAtEnd(out) : 0;
    if (lead > 0) {
      let end = i;
      while (words[end + 1]?.startsWith(GARBAGE_PREFIX)) end++;
      // longer than a place or a name: a sentence the grammar cannot hold, kept as garbage to count against the answers
      if (end - i + 1 <= MAX_UNHEARD_PHONES) { out.length -= lead; i = end; continue; }
    }
    out.push(words[i]);
  }
  return out;
}

/** How many of the last words are an unheard thing's lead, with the hesitations after it ("my name is um"); 0 if none. */
function leadAtEnd(words: string[], leads = UNHEARD_LEADS): number {
  let end = words.length;
  while (end > 0 && HESITATION.has(words[end - 1])) end--;
  const lead = leads.find((l) => l.length <= end && l.every((w, k) => words[end - l.length + k] === w));
  return lead ? words.length - (end - lead.length) : 0;
}

/** Whether a path holds a name the grammar lacks (garbage phones after a name's lead). */
export function holdsUnheardName(path: string): boolean {
  const words = path.toLowerCase().split(/\s+/);
  return words.some((w, i) => w.startsWith(GARBAGE_PREFIX) && leadAtEnd(words.slice(0, i), NAME_LEAD_WORDS) > 0);
}

const NAMES = new Set(FIRST_NAMES);
const NAME_LEAD_ENDS = new Set(['is', "name's", 'am', "i'm", "it's", 'me']);
const SCALES = new Set(['thousand', 'lakh', 'lakhs', 'crore', 'crores', 'million', 'billion']);
const CURRENCIES = new Set(['rupees', 'dollars', 'euros', 'pounds']);
const DAYS = new Set([...WEEKDAYS, 'today', 'tomorrow']);
const PARTS_OF_DAY = new Set([...DAY_PARTS, ...DAY_PARTS_ALONE]);

/**
 * Whether the words give a field more than one answer: two names (a listed name, or the word after a name's lead),
 * two amounts (each ends in one scale word or currency), two days or two parts of a day.
 */
export function answersOneFieldTwice(words: string[]): boolean {
  let names = 0, amounts = 0, days = 0, parts = 0;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (NAMES.has(w) || (NAME_LEAD_ENDS.has(words[i - 1]) && !isLeadWord(w))) names++;
    if (SCALES.has(w) || (CURRENCIES.has(w) && !SCALES.has(words[i - 1]))) amounts++;
    if (DAYS.has(w)) days++;
    if (PARTS_OF_DAY.has(w)) parts++;
  }
  return names > 1 || amounts > 1 || days > 1 || parts > 1;
}

/**
 * Whether the words hold a range whose second number is not above its first ("ten to three lakh", "four to two
 * thousand"): a range of a budget rises, so such a reading is a teen or a ten misheard as two numbers.
 */
export function hasFallingRange(words: string[]): boolean {
  const runs = numberRuns(words);
  return words.some((w, k) => {
    if (w !== 'to') return false;
    const from = runs.find((r) => r.end === k), to = runs.find((r) => r.start === k + 1);
    return from !== undefined && to !== undefined && to.value <= from.value;
  });
}

/** Runs of number words with their values, as the grammar says numbers: "sixty", "two hundred and fifty", "a hundred". */
function numberRuns(words: string[]): Array<{ start: number; end: number; value: number }> {
  const runs: Array<{ start: number; end: number; value: number }> = [];
  const inRun = (j: number) => NUMBER_WORDS[words[j]] !== undefined || words[j] === 'hundred'
    || (words[j] === 'a' && words[j + 1] === 'hundred') || (words[j] === 'and' && words[j - 1] === 'hundred' && NUMBER_WORDS[words[j + 1]] !== undefined);
  for (let i = 0; i < words.length; i++) {
    if (!inRun(i) || words[i] === 'hundred' || words[i] === 'and') continue;
    let j = i, value = 0;
    for (; j < words.length && inRun(j); j++) {
      if (words[j] === 'hundred') value = (value || 1) * 100;
      else value += NUMBER_WORDS[words[j]] ?? 0;
    }
    runs.push({ start: i, end: j, value });
    i = j - 1;
  }
  return runs;
}

/** words that follow a name's lead without being a name ("my name is", "i am looking", "call me later") */
const isLeadWord = (w: string | undefined) => w === undefined || /^(a|an|the|not|looking|busy|interested|back|later|tomorrow|again|fine|good|my|about|around|up|approximately|roughly|maximum|gb_.*)$/.test(w)
  || NUMBER_WORDS[w] !== undefined || SCALES.has(w) || DAYS.has(w);

const HOUR_SET = new Set(HOURS);
const MINUTES: Record<string, string> = { "o'clock": '', fifteen: ':15', thirty: ':30' };

/** Words as said to the text the dialog's extractors read (times in digits; amounts stay words, which they read). */
export function spokenToText(words: string[]): string {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === 'b' && words[i + 1] === 'h' && words[i + 2] === 'k') { out.push('bhk'); i += 2; continue; }
    if (w === 'bed' && words[i + 1] === 'room') { out.push('bedroom'); i += 1; continue; }
    const timeStart = HOUR_SET.has(w) && (words[i - 1] === 'at' || isTimeTail(words, i + 1));
    if (!timeStart) { out.push(w); continue; }
    let text = String(NUMBER_WORDS[w]);
    let j = i + 1;
    if (words[j] === 'forty' && words[j + 1] === 'five') { text += ':45'; j += 2; }
    else if (words[j] in MINUTES && !(words[j] === 'fifteen' && !isTimeTail(words, j + 1) && words[i - 1] !== 'at')) { text += MINUTES[words[j]]; j++; }
    if ((words[j] === 'a' || words[j] === 'p') && words[j + 1] === 'm') { text += ` ${words[j]}m`; j += 2; }
    else if (words[j] === 'in' && words[j + 1] === 'the' && DAY_PARTS.includes(words[j + 2])) {
      text += words[j + 2] === 'morning' ? ' am' : ' pm'; j += 3;
    } else if (DAY_PARTS.includes(words[j])) { text += words[j] === 'morning' ? ' am' : ' pm'; j++; }
    out.push(text);
    i = j - 1;
  }
  return out.join(' ');
}

function isTimeTail(words: string[], j: number): boolean {
  const w = words[j];
  return w === "o'clock" || ((w === 'a' || w === 'p') && words[j + 1] === 'm')
    || (w === 'in' && words[j + 1] === 'the' && DAY_PARTS.includes(words[j + 2]));
}
