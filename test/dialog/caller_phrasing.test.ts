/**
 * Issue 33, answers as callers say them: "Next Friday at four p m" was stored as the intent, "Tomorrow at eleven"
 * was refused as having no time, "Hi, I am Ravi" gave no name. Times, dates, amounts and names are read the way
 * people speak them, whichever question was asked.
 */
import t from 'tap';
import { converse, textOf } from './helpers/converse.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';

// NOW is Sunday 2026-11-22 18:00 UTC (23:30 in Kolkata, so "tomorrow" there is Monday the 23rd)

t.test('"Next Friday at four p m" while the intent is asked: a slot, not the intent', async (t) => {
  const c = converse(['Ravi', 'Next Friday at four p m']);
  t.equal(c.extracted.scheduled_slot, '2026-11-27T16:00:00+05:30');
  t.equal(c.extracted.intent, undefined);
  t.ok(textOf(c.turns[2]).endsWith(DEFAULT_AGENT.qualify_script[1].question), 'the intent is still asked');
});

t.test('"Tomorrow at eleven" is a time; "eleven" after a day is read inside the calling hours', async (t) => {
  t.equal(converse(['Anna', 'a villa', '50 lakh', 'Tomorrow at eleven']).extracted.scheduled_slot, '2026-11-23T11:00:00+05:30');
  const twoTurns = converse(['Anna', 'a villa', '50 lakh', 'Tuesday', 'eleven']);
  t.match(textOf(twoTurns.turns[4]), /I need a time as well as a day/);
  t.equal(twoTurns.extracted.scheduled_slot, '2026-11-24T11:00:00+05:30');
  t.equal(converse(['Anna', 'a villa', '50 lakh', 'Tuesday', 'at three']).extracted.scheduled_slot, '2026-11-24T15:00:00+05:30', 'three means 3 pm');
});

t.test('day after tomorrow, evening, half past', async (t) => {
  t.equal(converse(['Anna', 'a villa', '50 lakh', 'day after tomorrow in the evening']).extracted.scheduled_slot, '2026-11-24T18:00:00+05:30');
  t.equal(converse(['Anna', 'a villa', '50 lakh', 'Saturday at half past two']).extracted.scheduled_slot, '2026-11-28T14:30:00+05:30');
  t.equal(converse(['Anna', 'a villa', '50 lakh', 'monday eleven thirty']).extracted.scheduled_slot, '2026-11-23T11:30:00+05:30');
});

t.test('"Hi, I am Ravi" gives the name, first turn or not', async (t) => {
  t.equal(converse(['Hi, I am Ravi']).extracted.customer_name, 'Ravi');
  t.equal(converse(['Hi, I am Ravi'], {}, { callerFirst: true }).extracted.customer_name, 'Ravi');
  t.equal(converse(["Hello, I'm Ravi Kumar and I want a two bedroom flat"]).extracted.customer_name, 'Ravi Kumar');
});

t.test('spelled-out amounts', async (t) => {
  t.equal(converse(['Anna', 'a villa', 'about fifty lakh rupees']).extracted.budget, '5000000 INR');
  t.equal(converse(['Anna', 'a villa', 'two point five crore']).extracted.budget, '25000000 INR');
  t.equal(converse(['Anna', 'a villa', 'four hundred thousand dollars']).extracted.budget, '400000 USD');
});

t.test('any field at any turn: all of it in the first answer', async (t) => {
  const c = converse(["I'm Priya Sharma, looking for a 3BHK, budget one crore, and next Friday at four p m suits me", 'no thanks']);
  t.same(c.extracted, {
    customer_name: 'Priya Sharma', intent: 'a 3BHK', budget: '10000000 INR', scheduled_slot: '2026-11-27T16:00:00+05:30', qualification_score: 100,
  });
  t.match(textOf(c.turns[1]), /anything else/);
  t.same(c.last.at(-1), { type: 'end_call', reason: 'completed' });
});
