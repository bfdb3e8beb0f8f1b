/**
 * Builds the grammar (JSGF) for one caller turn from what the dialog waits for (its ListenHint) and what a caller may
 * say at any time. The grammar is a bag of phrases in any order, so one sentence may answer several questions
 * ("my name is Fatima, I want a villa, budget three crore"), with a garbage model beside them: every phone of the
 * acoustic model as a one-phone word, at a low weight. Speech that fits no phrase is absorbed by garbage instead of
 * being forced onto the nearest phrase, and the reading (reading.ts) rejects a turn that holds no phrase.
 */
import type { ListenHint } from '../../adapters/types.js';
import { NO_PHRASES, YES_PHRASES } from '../../dialog/yes_no.js';
import { ALWAYS_ON, DAY_PARTS, DAY_PARTS_ALONE, FIRST_NAMES, HESITATIONS, HOURS, PROPERTY_KINDS, TEENS, TENS, UNITS, WEEKDAYS } from './vocabulary.js';

/** the acoustic model's phones: each becomes a garbage word `gb_<phone>` */
export const GARBAGE_PHONES = ['AA', 'AE', 'AH', 'AO', 'AW', 'AY', 'B', 'CH', 'D', 'DH', 'EH', 'ER', 'EY', 'F', 'G', 'HH', 'IH',
  'IY', 'JH', 'K', 'L', 'M', 'N', 'NG', 'OW', 'OY', 'P', 'R', 'S', 'SH', 'T', 'TH', 'UH', 'UW', 'V', 'W', 'Y', 'Z', 'ZH'];
export const GARBAGE_PREFIX = 'gb_';
/** the words that lead a need's place ("near the school"); what follows is any speech */
export const PLACE_LEADS = ['near', 'in', 'close to', 'next to', 'around'];
export const garbageWords = (): Array<[string, string]> => GARBAGE_PHONES.map((p) => [`${GARBAGE_PREFIX}${p.toLowerCase()}`, p]);

/** Relative weights of the alternatives (a JSGF alternative's weight is its share among its siblings). */
export const WEIGHTS = {
  /** the field the caller was just asked about */
  asked: 4,
  /** any other open field, the always-on intents */
  open: 1,
  /**
   * the whole turn as garbage phones, against the turn as phrases: low, so speech that fits a phrase takes it,
   * while speech that fits none is absorbed rather than forced onto the nearest phrase
   */
  garbage: 1e-6,
};

/**
 * Most garbage phones an unheard name is heard as: the longest first names have ten phones ("Bartholomew",
 * "Alexander" nine), and the loop inserts a few more
 */
const MAX_NAME_PHONES = 12;

/** Words a name can arrive in: "my name is Meera", "this is Karan", "Arun here". */
export const NAME_LEADS = ['my name is', "my name's", 'this is', 'i am', "i'm", "it's", 'call me'];

const dayParts = `(${DAY_PARTS.join(' | ')})`;
const alone = DAY_PARTS_ALONE.join(' | ');
const number99 = `(${[...UNITS, ...TEENS].join(' | ')} | (${TENS.join(' | ')}) [${UNITS.join(' | ')}])`;
// `[<hes>]` marks where a caller may stop to think: after a lead ("my budget is, uh, …", "at, um, ten"), between
// answers. Heard as words, a hesitation is not left out of the reading nor taken for the next answer. Not between a
// day and its part: there "um" took the place of "evening" ("friday um works for me") and the part was lost.
const RULES: Record<string, string> = {
  hes: `(${HESITATIONS.join(' | ')})`,
  n99: number99,
  digit: `(zero | oh | ${UNITS.join(' | ')})`,
  n: '(<n99> [hundred [and] [<n99>]] | a hundred [and] [<n99>])',
  // lakhs are counted to ninety-nine (a hundred lakh is a crore): "a hundred two lakh" was a path for "under eighty lakh"
  scale: '(thousand | crore | crores | million | billion)',
  lakhs: '(lakh | lakhs)',
  currency: '(rupees | dollars | euros | pounds)',
  amount: '((<n> [point <digit> [<digit>]] [and a half] <scale> | <n99> [point <digit> [<digit>]] [and a half] <lakhs>) [<currency>] | <n> <currency> | [half] a (million | billion | crore | lakh) [<currency>])',
  amount_said: "[my budget is | budget [is] | my limit is | we can spend | i can spend | i can afford] [<hes>] [(about | around | up to | approximately | roughly | maximum | not more than | under | below | less than | within) [<hes>]] (<amount> | (<n> to <n> <scale> | <n99> to <n99> <lakhs>) [<currency>]) [is my limit | is my budget | maximum | max | only]",
  weekday: `(${WEEKDAYS.join(' | ')})`,
  day: '(today | tomorrow | day after tomorrow | [next | this | coming] <weekday>)',
  part: `([in the] ${dayParts} | ${alone})`,
  // after an hour a part of the day is said whole ("six in the evening", "twelve noon"): "eight evening" was a
  // path for "Friday evening" that gave it an hour never said
  hour_part: `(in the ${dayParts} | ${alone})`,
  time: `(at [around | about] | around) [<hes>] (${HOURS.join(' | ')}) [o'clock | fifteen | thirty | forty five] [a m | p m | <hour_part>] | (${HOURS.join(' | ')}) [o'clock | fifteen | thirty | forty five] (a m | p m | o'clock | <hour_part>)`,
  when: '(<day> [<part>] [<time>] | <time> [<day>] | <part> [<time>])',
  fits: '(works for me | suits me | is fine | works | is good)',
  slot_said: '[on | maybe | how about] <when> [<fits>]',
  // a day with its time, or a time said to fit: a bare "Thursday" or "noon" after another answer tiles other speech
  slot_led: '[on | maybe | how about] (<day> (<part> [<time>] | <time>) | <time> <day>) [<fits>] | <when> <fits>',
  kind: `(${PROPERTY_KINDS.join(' | ')})`,
  need: `[a | an] [<hes>] [(${UNITS.slice(0, 5).join(' | ')}) (bedroom | bed room | b h k | bhk)] <kind> [<where>]`,
  // where a need is wanted ("a villa near the school", "a flat in Whitefield"): any place, heard as garbage phones
  where: `(${PLACE_LEADS.join(' | ')}) <garbage>+`,
  wanting: '(need | want | are looking for | am looking for | would like | want to buy)',
  wanted: '(<need> | to (buy | rent | invest) [<need>])',
  // a subject comes with its verb: "I a villa" is no answer (that path gave slt's "I want a villa" as "i a land")
  need_said: '[[we | i] <wanting> [<hes>]] <wanted>',
  need_led: '[we | i] <wanting> [<hes>] <wanted>',
  // to a yes/no question: the phrases the dialog reads as yes or no (dialog/yes_no.ts), with what a caller adds to
  // them; "nothing else" answers "anything else?". Unasked, the short yes words only (YES_NO_UNASKED)
  yes: `(${YES_PHRASES.join(' | ')})`,
  no: `(${NO_PHRASES.join(' | ')})`,
  agreed: "(that works | that's fine | that is fine | sounds good | that's right | that is right | go ahead | it is)",
  no_more: "(nothing else | that's all | that is all | that's it | it isn't | it's not | not now | not yet)",
  yesno: '(<yes> [<agreed>] | <no> [<no_more>] | nothing else) [please | thank you]',
};

/**
 * A yes or no where no yes/no question was asked: rare, and in a row of answers the dialog's shorter yes words took
 * another answer's first word ("next monday at 4 pm" heard as "yup monday at 4 pm", "hi i am sunil" as "fine i am sunil")
 */
const YES_NO_UNASKED = "(yes | yeah | yep | sure | okay | ok | no | nope | correct | right | that's right | of course | not really) [please | thank you]";

/** JSGF-safe word: lower case letters and apostrophes only (names from a context may hold anything). */
export function grammarWord(w: string): string | undefined {
  const s = w.toLowerCase().replace(/[^a-z']/g, '');
  return s.length >= 2 && s.length <= 24 ? s : undefined;
}

export interface TurnGrammar { jsgf: string; key: string }

/**
 * Whether a turn's grammar takes one answer (of any field, the asked one weighing more) rather than several in one
 * sentence: true when the dialog asked a known field or a yes/no question.
 */
export const isOneAnswer = (hint: ListenHint | undefined): boolean => fieldItem(hint?.asking) !== undefined || hint?.yesNo === true;

/** The field a hint's `asked` maps to among the grammar's items (custom fields get no item of their own). */
function fieldItem(field: string | undefined): string | undefined {
  switch (field) {
    case 'customer_name': return 'name';
    case 'budget': return 'amount';
    case 'scheduled_slot': return 'slot';
    case 'intent': return 'need';
    default: return undefined;
  }
}

/**
 * The grammar for a turn: every field's answers, yes/no and the always-on intents, the asked field weighing more, so
 * a caller may answer another question than the one asked (mixed initiative). When the dialog asked one known field
 * (or a yes/no question) the turn takes one answer: a loop of answers costs about twice the CPU of one answer and
 * several times the build (bench/README.md). Otherwise (no hint, a custom field) one or more answers in one sentence
 * ("my name is Fatima, I want a villa, budget three crore"). `hint.names` are names the caller may say beyond the
 * list (the lead's own name): only words the dictionary knows or that were added are used, so the caller decides
 * which of them can go in (`known`).
 */
export function buildGrammar(hint: ListenHint | undefined, known: (word: string) => boolean = () => true): TurnGrammar {
  const asked = fieldItem(hint?.asking);
  const extra = (hint?.names ?? []).flatMap((n) => n.split(/\s+/)).map(grammarWord).filter((w): w is string => !!w && known(w));
  const names = [...new Set([...FIRST_NAMES, ...extra])].sort();
  const w = (item: string) => (item === asked || (item === 'yesno' && hint?.yesNo) ? WEIGHTS.asked : WEIGHTS.open);
  const intentRules = Object.entries(ALWAYS_ON).map(([k, phrases]) => `<i_${k}> = (${phrases.join(' | ')});`);
  const one = isOneAnswer(hint);
  const fields = [['name', '<name_said>'], ['amount', '<amount_said>'], ['slot', '<slot_said>'], ['need', '<need_said>']];
  // a goodbye closes a turn of several answers rather than leading one: "Hi, I am Sunil" was heard as "bye i am
  // sunil", which the dialog takes for the caller hanging up
  const leading = Object.keys(ALWAYS_ON).filter((k) => one || k !== 'bye');
  const answers = [
    ...fields.map(([item, rule]) => `/${w(item)}/ ${rule}`), `/${w('yesno')}/ <yesno>`,
    ...leading.map((k) => `/${WEIGHTS.open}/ <i_${k}>`),
  ];
  const lines = [
    '#JSGF V1.0;', 'grammar turn;',
    `public <turn> = /1/ <said> | /${WEIGHTS.garbage}/ <garbage>+;`,
    // one or more answers in one sentence, joined by "and" or nothing (a loop: one copy of the answers, not one per
    // place); an answer after the first carries its own lead ("budget three crore", "I want a villa"): bare names,
    // yes/no and short intents in a loop tile everyday speech into a row of answers
    one ? '<said> = [<hes> | well | so | okay] <answer> [please | thank you | thanks];'
      : `<said> = /${answers.length}/ [<hes> | well | so | okay] <answer> ([and] [<hes>] <led_answer>)* [please | thank you | thanks] | /${WEIGHTS.open}/ <i_bye>;`,
    `<answer> = ${answers.join(' | ')};`,
    ...(one ? [] : ['<led_answer> = <name_led> | <amount_said> | <slot_led> | <need_led>;', `<name_led> = (${NAME_LEADS.join(' | ')}) [<hes>] <name_heard>;`]),
    `<name_said> = [hello | hi] ((${NAME_LEADS.join(' | ')}) [<hes>] <name_heard> | <name>) [here];`,
    // a name the list lacks, after its lead, is heard as garbage phones (an unheard name: reading.ts) rather than
    // forced onto the nearest listed name ("my name is Jennifer" was "my name is john"). Not among several answers:
    // in a row, a lead and garbage took in everyday speech anywhere ("michael thirty crore it's <garbage>"), and as
    // the whole turn it took listed names ("hello i am <garbage>" for "Hello, I am Meera")
    one ? `<name_heard> = /1/ <name> | /${WEIGHTS.garbage}/ <name_phones>;` : '<name_heard> = <name>;',
    // as long as a name: unbounded, "my name is <garbage>" took in the answers after the name ("... arjun and my
    // budget is one crore")
    `<name_phones> = ${'<garbage> ['.repeat(MAX_NAME_PHONES - 1)}<garbage>${']'.repeat(MAX_NAME_PHONES - 1)};`,
    `<name> = (${names.join(' | ')});`,
    `<garbage> = (${garbageWords().map(([g]) => g).join(' | ')});`,
    ...Object.entries({ ...RULES, ...(hint?.yesNo ? {} : { yesno: YES_NO_UNASKED }) }).map(([k, v]) => `<${k}> = ${v};`),
    ...intentRules,
  ];
  return { jsgf: lines.join('\n') + '\n', key: `${one ? asked ?? 'yesno' : 'several'}|${hint?.yesNo ? 1 : 0}|${extra.join(',')}` };
}
