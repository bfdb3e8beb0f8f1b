/**
 * What broke: "Hi, my name is Anita Rao" as the first turn was taken as a greeting and the name asked again (then
 * "Sorry, I didn't catch that", then escalation); "eighty lakh" was no budget while "80 lakh" was.
 */
import t from 'tap';
import { converse, textOf } from './helpers/converse.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';

t.test('the first turn of a demo may carry the name', async (t) => {
  const c = converse(['Hi, my name is Anita Rao'], {}, { callerFirst: true });
  t.same(c.turns[0].filter((e) => e.type === 'entity'), [{ type: 'entity', key: 'customer_name', value: 'Anita Rao' }]);
  const text = textOf(c.turns[0]);
  t.ok(text.startsWith(DEFAULT_AGENT.disclosure_script), 'the disclosure still comes first');
  t.ok(text.endsWith(DEFAULT_AGENT.qualify_script[1].question), 'and the agent moves on to the next question');
  t.notMatch(text, /didn't catch/);
});

t.test('one turn may answer several questions, in any order', async (t) => {
  const c = converse(['Hi, I am Anita Rao, looking for a 2BHK flat with a budget of eighty lakh', 'tomorrow at 10 am']);
  t.same(c.extracted, {
    customer_name: 'Anita Rao', intent: 'a 2BHK flat', budget: '8000000 INR',
    scheduled_slot: '2026-11-23T10:00:00+05:30', qualification_score: 100,
  });
  t.equal(c.turns.length, 3, 'two caller turns were enough');
});

t.test('an answer to a later question while another is asked', async (t) => {
  const c = converse(['My budget is one point two crore', 'Ravi']);
  t.equal(c.extracted.budget, '12000000 INR');
  t.equal(textOf(c.turns[1]), DEFAULT_AGENT.qualify_script[0].question, 'the name is still wanted: asked again, no apology');
  t.equal(c.extracted.customer_name, 'Ravi');
});

t.test('a budget "around" a number in words is no visit time: nothing is booked before the caller says when', async (t) => {
  // the simulator's callees said these, and each was booked for today at the hour of its first number word
  for (const [said, stored] of [['My budget is around two hundred fifty thousand dollars.', '250000 USD'],
    ['My budget is around one point two million dollars.', '1200000 USD'], ['My budget is around four hundred thousand dollars.', '400000 USD']]) {
    const c = converse(['Ravi', 'a house', said]);
    t.equal(c.extracted.budget, stored, said);
    t.equal(c.extracted.scheduled_slot, undefined, said);
    t.notOk(c.last.some((e) => e.type === 'tool_call' && e.tool === 'calendar_booking'), 'no booking');
    t.equal(textOf(c.last), DEFAULT_AGENT.qualify_script[3].question, 'the visit time is asked');
  }
});

t.test('a time without a day, said to another question, books no visit; asked when, it does', async (t) => {
  for (const said of ['Around five.', 'I can talk at four.', 'Sometime in the morning.', 'At two?']) {
    const c = converse(['Ravi', said]);
    t.equal(c.extracted.scheduled_slot, undefined, said);
    t.notOk(c.last.some((e) => e.type === 'tool_call' && e.tool === 'calendar_booking'), `${said}: no booking`);
  }
  t.equal(converse(['Ravi', 'Friday evening works for me.']).extracted.scheduled_slot, '2026-11-27T18:00:00+05:30', 'a day and its part: taken');
  t.equal(converse(['Ravi', 'a house', 'fifty lakh', 'Around five.']).extracted.scheduled_slot, '2026-11-23T17:00:00+05:30', 'asked: taken');
});

t.test('a caller who gives their name when asked what they look for has not said what they look for', async (t) => {
  for (const said of ['My name is Karan.', 'Karan here.', 'Hello, I am Meera.', 'This is Anjali.', 'Hi, I am Sunil.', 'Vikram speaking.']) {
    const c = converse(['Ravi', said]);
    t.equal(c.extracted.intent, undefined, said);
    t.match(textOf(c.last), DEFAULT_AGENT.qualify_script[1].question, 'the need is asked again');
  }
  // nor has one who says who decides, only goes ahead, or says when rather than what
  for (const said of ['My wife decides, her name is Priya.', 'Sure, go ahead.', 'Maybe after Diwali.', 'Next week sometime.', 'I work till six, so evenings.',
    'Hmm, let me think.', 'I already bought one.']) {
    t.equal(converse(['Ravi', said]).extracted.intent, undefined, said);
  }
  t.equal(converse(['My wife decides, her name is Priya.']).extracted.customer_name, undefined, 'her name is not the caller\'s');
  for (const [said, need] of [['A house for next year.', 'A house for next year'], ['I am looking for a villa.', 'a villa'], ['A two bedroom flat near the station.', 'A two bedroom flat near the station'],
    ['Something in the city centre.', 'Something in the city centre']]) {
    t.equal(converse(['Ravi', said]).extracted.intent, need, said);
  }
});

t.test('amounts in words and digits, Indian and international, one normal form', async (t) => {
  const cases: Array<[string, string]> = [
    ['eighty lakh', '8000000 INR'], ['80 lakh', '8000000 INR'], ['₹80L', '8000000 INR'], ['one point two crore', '12000000 INR'],
    ['two hundred thousand', '200000'], ['1.5 million', '1500000'], ['around 400,000 dollars', '400000 USD'],
    ['one and a half million dollars', '1500000 USD'], ['1,50,000 rupees', '150000 INR'], ['$350k', '350000 USD'],
  ];
  for (const [said, stored] of cases) {
    const c = converse(['Anna', 'a villa by the sea', said]);
    t.equal(c.extracted.budget, stored, said);
  }
});
