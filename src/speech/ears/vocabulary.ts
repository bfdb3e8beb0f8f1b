/**
 * The words the grammar recogniser knows beyond its English dictionary, and the word lists its grammars are built
 * from. Pronunciations use the acoustic model's phone set (CMU, no stress marks); each was written from how the
 * word is said on Indian and English phone lines, not tuned to recordings.
 */

/** Words missing from the model's dictionary: Indian money words, Indian first names, shorthand. */
export const EXTRA_PRONUNCIATIONS: ReadonlyArray<readonly [string, string]> = [
  ['lakh', 'L AA K'], ['lakh(2)', 'L AE K'], ['lakhs', 'L AA K S'], ['crore', 'K R AO R'], ['crores', 'K R AO R Z'],
  ['bhk', 'B IY EY CH K EY'],
  ['aarav', 'AA R AH V'], ['aditya', 'AH D IH T Y AH'], ['anil', 'AH N IH L'], ['anjali', 'AH N JH AH L IY'],
  ['ankit', 'AH NG K IH T'], ['arun', 'AH R UW N'], ['arun(2)', 'AA R UW N'], ['divya', 'D IH V Y AH'],
  ['gaurav', 'G AW R AH V'], ['geeta', 'G IY T AH'], ['harish', 'HH AH R IY SH'], ['imran', 'IH M R AA N'],
  ['isha', 'IY SH AH'], ['kavita', 'K AH V IH T AH'], ['kiran', 'K IH R AH N'], ['lakshmi', 'L AH K SH M IY'],
  ['meena', 'M IY N AH'], ['meera', 'M IY R AH'], ['nandini', 'N AH N D IH N IY'], ['neha', 'N EY HH AA'],
  ['nikhil', 'N IH K IH L'], ['pooja', 'P UW JH AH'], ['priya', 'P R IY Y AH'], ['rajesh', 'R AA JH EY SH'],
  ['sarita', 'S AH R IY T AH'], ['shreya', 'SH R EY AH'], ['sita', 'S IY T AH'], ['tanvi', 'T AH N V IY'],
  ['varun', 'V AH R UW N'], ['vijay', 'V IH JH EY'], ['vikram', 'V IH K R AH M'], ['yash', 'Y AH SH'],
  ['farhan', 'F AA R HH AA N'], ['sneha', 'S N EY HH AA'], ['rekha', 'R EY K AH'], ['ganesh', 'G AH N EY SH'],
  ['ravi(2)', 'R AH V IY'], ['karan(2)', 'K AH R AH N'], ['amit(2)', 'AH M IY T'], ['amit(3)', 'AE M IH T'],
  // names the dictionary has only as read in America ("deepak" D IY P AE K): as they are said in India
  ['rahul(2)', 'R AA HH UH L'], ['deepak(2)', 'D IY P AH K'], ['suresh(2)', 'S UH R EY SH'], ['sanjay(2)', 'S AH N JH EY'],
  ['manish(2)', 'M AH N IY SH'], ['sachin(2)', 'S AH CH IH N'], ['salman(2)', 'S AH L M AA N'], ['rohan(2)', 'R OW HH AH N'],
  ['arjun(2)', 'AH R JH UH N'], ['mohan(2)', 'M OW HH AH N'], ['ramesh(2)', 'R AH M EY SH'], ['sunil(2)', 'S UH N IY L'],
  ['ayesha(2)', 'AA Y EY SH AA'], ['mohammed(2)', 'M OW HH AH M AH D'],
];

/** Common Indian and English first names the recogniser always listens for (a lead's own name is added per call). */
export const FIRST_NAMES = [
  'aarav', 'aditya', 'amit', 'anil', 'anita', 'anjali', 'ankit', 'arjun', 'arun', 'asha', 'deepak', 'divya', 'fatima',
  'gaurav', 'geeta', 'harish', 'imran', 'isha', 'karan', 'kavita', 'kiran', 'krishna', 'lakshmi', 'manish', 'meena',
  'meera', 'mohan', 'nandini', 'neha', 'nikhil', 'pooja', 'priya', 'rahul', 'raj', 'rajesh', 'ravi', 'rohan', 'sachin',
  'sanjay', 'sarita', 'shreya', 'sita', 'sunil', 'suresh', 'tanvi', 'varun', 'vijay', 'vikram', 'yash', 'zara',
  'ayesha', 'farhan', 'salman', 'sneha', 'rekha', 'ramesh', 'ganesh', 'aisha', 'mohammed',
  'anna', 'maria', 'john', 'james', 'mary', 'david', 'sarah', 'michael', 'emma', 'daniel', 'olivia', 'peter', 'laura',
  'chris', 'kate', 'mark', 'lucy', 'paul', 'tom', 'jack', 'sophie', 'lucas', 'chen',
];

export const UNITS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
export const TEENS = ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
export const TENS = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
export const NUMBER_WORDS: Record<string, number> = Object.fromEntries([
  ['zero', 0], ...UNITS.map((w, i) => [w, i + 1]), ...TEENS.map((w, i) => [w, i + 10]), ...TENS.map((w, i) => [w, (i + 2) * 10]),
]);
/** what a caller says while thinking ("my name is, um, Rahul"): heard as words, never part of an answer */
export const HESITATIONS = ['um', 'uh', 'er', 'hmm'];
export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
export const HOURS = [...UNITS, 'ten', 'eleven', 'twelve'];
/** parts of the day a caller says after "in the" ("in the evening"), and those said alone */
export const DAY_PARTS = ['morning', 'afternoon', 'evening'];
export const DAY_PARTS_ALONE = ['noon', 'tonight'];
export const PROPERTY_KINDS = ['flat', 'apartment', 'villa', 'house', 'home', 'plot', 'land', 'office', 'shop', 'penthouse',
  'studio', 'bungalow', 'duplex', 'office space'];

/** What a caller may say at any time on a sales call, by the intent it names (the words stay as said). */
export const ALWAYS_ON: Record<string, string[]> = {
  person: ['[can i] (talk | speak) to a (human | person | real person | manager | someone) [please]',
    '[i would rather | i\'d rather] (talk | speak) to a (human | person | real person) [please]',
    '[give me | get me] a (real person | human) [please]', '(human | real person | agent) please'],
  not_interested: ['[i am | i\'m] not interested [thank you | thanks]', 'no thanks', 'no thank you'],
  stop_calling: ['stop calling [me]', 'don\'t call me [again]', 'do not call me [again]', 'remove my number', 'take me off your list'],
  later: ['call me (later | back [later] | tomorrow)', '[i am | i\'m] busy [right now | now]', 'not a good time', 'can you call [me] back [later]'],
  who: ['who is this', 'who are you', 'who is calling', 'where are you calling from'],
  repeat: ['[can you | could you] (repeat that | say that again) [please]', 'sorry what', 'pardon', 'what did you say'],
  bye: ['bye', 'goodbye', 'thank you', 'thanks'],
};
