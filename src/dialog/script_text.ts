/**
 * A qualify script written as text (how an operator writes one: instructions and questions in prose) turned into
 * the ordered {field, question} steps the scripted engine walks. One step per question: a sentence ending in "?"
 * (or "？"), found line by line so a list of questions without full stops still splits. Each question is mapped
 * to the extracted_data field it asks for when recognisable (name, intent, budget, time); any other question
 * gets a field named after its words ("Are you a first-time buyer?" -> first_time_buyer). The text itself is
 * kept as written: a language model reads it as instructions.
 */

export interface DerivedStep { field: string; question: string }

/** Most steps a text may yield (the same bound as a structured script). */
export const MAX_TEXT_STEPS = 20;

const KNOWN: Array<[field: string, pattern: RegExp]> = [
  ['customer_name', /\b(your (?:full |first )?name|who am i (?:speaking|talking) (?:with|to)|who is (?:this|speaking)|what should i call you|may i know who)\b/i],
  ['budget', /\b(budget|spend|afford|price range|how much)\b/i],
  ['intent', /\b(looking for|interested in|what kind|what type|which type|requirements?|what (?:are|were) you after|help you with|what do you need)\b/i],
  ['scheduled_slot', /\b(when|what time|which day|what day|visit|appointment|schedule|available|suits? you|slot|call you back)\b/i],
];

const STOP = new Set(['a', 'an', 'the', 'are', 'is', 'do', 'does', 'did', 'you', 'your', 'yours', 'we', 'i', 'me', 'my', 'to', 'of',
  'for', 'have', 'has', 'had', 'can', 'could', 'would', 'will', 'should', 'what', 'which', 'how', 'any', 'in', 'on', 'at', 'be',
  'there', 'this', 'that', 'it', 'please', 'and', 'or', 'with', 'about', 'may', 'might', 'already', 'currently', 'if', 'so', 'tell']);

/** The question sentences of a text, in order, trimmed of list markers ("1.", "-", "*", "Q:"). */
export function questionsOf(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s*(?:[-*•]|\d{1,2}[.)]|q\d*[:.)])\s*/i, '').trim();
    if (!line) continue;
    // sentences end at . ! ? (also the Indic danda and full-width marks); only the questions are kept
    for (const m of line.matchAll(/[^.!?।？]*[?？]/g)) {
      const q = spoken(m[0]);
      if (/\p{L}/u.test(q)) out.push(q);
    }
  }
  return out;
}

/**
 * The question as the agent says it: an instruction lead-in dropped ("Finally: when…", "Then ask what kind of home
 * they are looking for?" -> "What kind of home are you looking for?").
 */
function spoken(sentence: string): string {
  let q = sentence.replace(/？$/, '?').trim();
  q = q.slice(q.lastIndexOf(':') + 1).replace(/^[\s"'“”‘’]+/, '').trim();
  q = q.replace(/^(?:(?:and|then|first|firstly|next|finally|also|now|lastly)\b[\s,]*)+/i, '');
  const indirect = /^ask\b(?:\s+(?:them|him|her|the (?:caller|customer|lead|prospect)))?(?:\s+(?:whether|if))?\s+/i.exec(q);
  if (indirect) {
    q = q.slice(indirect[0].length)
      .replace(/\bthey are\b/gi, 'you are').replace(/\bthey're\b/gi, "you're").replace(/\btheir\b/gi, 'your')
      .replace(/\bthemselves\b/gi, 'yourself').replace(/\bthey\b/gi, 'you').replace(/\bthem\b/gi, 'you');
    // "what kind of home you are looking for?" -> "what kind of home are you looking for?"
    q = q.replace(/^((?:what|which|how|when|where|who|why)\b.*?)\byou (are|were|have|can|will|would)\b/i, '$1$2 you')
      // "whether you have a loan?" -> "Do you have a loan?"; "if you are …" -> "Are you …"
      .replace(/^you (are|were|can|will|would)\b/i, '$1 you').replace(/^you (?=\w)/i, 'do you ');
  }
  return q ? q[0].toUpperCase() + q.slice(1) : q;
}

/** The extracted_data field a question asks for, or undefined when it is none of the known ones. */
export function knownFieldOf(question: string): string | undefined {
  return KNOWN.find(([, re]) => re.test(question))?.[0];
}

/** A snake_case field for a question that asks for something of its own. */
function fieldFromWords(question: string): string {
  const words = question.toLowerCase().replace(/[^a-z0-9 -]+/g, ' ').split(/[\s-]+/).filter((w) => w && !STOP.has(w));
  const key = words.slice(0, 4).join('_').replace(/^[^a-z]+/, '').slice(0, 48);
  return key || 'answer';
}

/**
 * The steps of a text script: one per question, each known field used once (a second question about the same
 * thing keeps the first), custom fields made unique with a number. At most MAX_TEXT_STEPS.
 */
export function stepsFromText(text: string): DerivedStep[] {
  const steps: DerivedStep[] = [];
  const used = new Set<string>();
  for (const question of questionsOf(text)) {
    if (steps.length >= MAX_TEXT_STEPS) break;
    const known = knownFieldOf(question);
    if (known) {
      if (used.has(known)) continue;
      used.add(known);
      steps.push({ field: known, question });
      continue;
    }
    const base = fieldFromWords(question);
    let field = base;
    for (let n = 2; used.has(field); n++) field = `${base}_${n}`;
    used.add(field);
    steps.push({ field, question });
  }
  return steps;
}

/** The question the agent asks for a topic an instruction names ("budget", "a good time for a site visit"). */
const TOPICS: Array<[field: string, pattern: RegExp, question: string]> = [
  ['customer_name', /\b(name|who (?:they|he|she) (?:is|are))\b/i, 'May I have your name, please?'],
  ['intent', /\b(intent|requirements?|needs?|looking for|what (?:they|he|she) (?:want|need)s?|interest|property type|kind of (?:home|property|flat|house))\b/i, 'What are you looking for today?'],
  ['budget', /\b(budget|price range|spend|afford)\b/i, 'What budget do you have in mind?'],
  ['scheduled_slot', /\b(call[- ]?back|call (?:them|him|her) back)\b/i, 'When would be a good time to call you back?'],
  ['scheduled_slot', /\b(visit|appointment|meeting|time|slot|when|availability|schedule)\b/i, 'When would suit you for a site visit?'],
];
/** Instruction words before a list of topics: "Ask about", "Find out", "Collect", "Get their", "Confirm"… */
const INSTRUCTION = /\b(?:ask(?: (?:them|him|her|the (?:caller|customer|lead)))?(?: (?:about|for|regarding))?|find out(?: about)?|collect|get(?: their)?|gather|confirm|check|learn|note|capture|enquire about|inquire about|qualify (?:on|by))\s+(.+)$/i;

/** what an instruction may name that is no topic ("Ask nothing.") */
const NO_TOPIC = /^(?:nothing|anything|everything|questions?|no questions?|them|it|that|this)$/i;

/** A custom topic as a question: "their move-in date" -> "Could you tell me about your move-in date?" */
function topicQuestion(topic: string): string {
  const t = topic.replace(/\btheir\b/gi, 'your').replace(/\bthey\b/gi, 'you').replace(/\bthem\b/gi, 'you').trim();
  return `Could you tell me about ${/^(?:your|the|a|an)\b/i.test(t) ? t : `your ${t}`}?`;
}

/**
 * Steps from plain instructions that ask no question ("Ask about budget, intent and a good time for a site visit."):
 * each topic an instruction names, in order, becomes a step: a known field with its usual question, anything else
 * a free question of its own. A language model reads the text itself; this is what the scripted engine asks.
 */
export function stepsFromTopics(text: string): DerivedStep[] {
  const steps: DerivedStep[] = [];
  const used = new Set<string>();
  for (const sentence of text.split(/(?<=[.!;])\s+|\r?\n/)) {
    const m = INSTRUCTION.exec(sentence.trim().replace(/[.!;:]+$/, ''));
    if (!m) continue;
    for (const raw of m[1].split(/,\s*(?:and\s+|or\s+)?|\s+(?:and|or|as well as|plus)\s+/i)) {
      const topic = raw.replace(/^(?:their|the|a|an|about|for|whether)\s+/i, '').trim();
      if (!/\p{L}/u.test(topic) || NO_TOPIC.test(topic) || steps.length >= MAX_TEXT_STEPS) continue;
      const known = TOPICS.find(([, re]) => re.test(topic));
      const field = known ? known[0] : fieldFromWords(topic);
      if (used.has(field)) continue;
      used.add(field);
      steps.push({ field, question: known ? known[2] : topicQuestion(raw.trim()) });
    }
  }
  return steps;
}

/** The steps a text script yields: its questions, else the topics its instructions name, else the default four. */
export function stepsOfScriptText(text: string, defaults: DerivedStep[]): DerivedStep[] {
  const asked = stepsFromText(text);
  if (asked.length) return asked;
  const topics = stepsFromTopics(text);
  return topics.length ? topics : defaults;
}
