/**
 * What broke: answers filled fields they never gave. "My budget is around two hundred fifty thousand dollars" booked a
 * visit today at 2 pm, "My name is Karan" asked the need became the need, "Next week sometime" became a name, "A plot
 * of two thousand square feet" a budget, "I had pasta for dinner yesterday" the need. Each line is answered at each
 * question of the default script and must store exactly the fields it gives: those it states outright at any
 * question, a bare answer only at its own.
 */
import t from 'tap';
import { converse } from './helpers/converse.js';

type Field = 'customer_name' | 'intent' | 'budget' | 'scheduled_slot';
/** the default script's questions in order, with the answers that get the agent to each */
const QUESTIONS: Array<[Field, string[]]> = [
  ['customer_name', []], ['intent', ['Ravi']], ['budget', ['Ravi', 'a house']], ['scheduled_slot', ['Ravi', 'a house', 'fifty lakh']],
];
/** a line, the fields it states at any question, and the field it answers only when asked */
const LINES: Array<[string, Field[], Field?]> = [
  ['My name is Karan.', ['customer_name']], ['Karan here.', [], 'customer_name'], ['Deepak.', [], 'customer_name'],
  ['I am looking for a three bedroom villa.', ['intent']], ['A two B H K flat.', [], 'intent'],
  ['My budget is around two hundred fifty thousand dollars.', ['budget']], ['My budget is around one point two million dollars.', ['budget']],
  ['About four hundred thousand dollars.', ['budget']], ['One crore is my limit.', ['budget']],
  ['Friday at eleven thirty a m works for me.', ['scheduled_slot']], ['Tomorrow afternoon at three.', ['scheduled_slot']],
  ['Around five.', [], 'scheduled_slot'], ['Sometime in the morning.', [], 'scheduled_slot'],
  ['I am looking for something around fifty lakh.', ['budget']], ['A three bedroom flat under one crore.', ['budget'], 'intent'],
  ['Around fifty lakh, a villa.', ['budget'], 'intent'], ['We are two people, a small flat is fine.', [], 'intent'],
  ['Plot of two thousand square feet.', [], 'intent'], ['Next week sometime.', []], ['It is for my son.', []],
  ['Maybe after Diwali.', []], ['Sure, go ahead.', []], ['Hmm, let me think.', []], ['My wife decides, her name is Priya.', []],
  ['I had pasta for dinner yesterday.', []], ['The kitchen needs a new coat of paint.', []], ['We went to the market on foot.', []],
  ['My daughter starts school in June.', []], ['Sorry, the line is bad.', []], ['Who is this?', []], ['Not now, I am driving.', []],
];

t.test('each answer stores the fields it gives, at every question', async (t) => {
  for (const [asked, before] of QUESTIONS) {
    const filled = converse(before).extracted;
    for (const [line, stated, bare] of LINES) {
      const stored = Object.keys(converse([...before, line]).extracted)
        .filter((k) => filled[k] === undefined && k !== 'qualification_score').sort();
      const want = [...new Set([...stated, ...(bare === asked ? [bare] : [])])].filter((f) => filled[f] === undefined).sort();
      t.same(stored, want, `${asked} asked: "${line}"`);
    }
  }
});
