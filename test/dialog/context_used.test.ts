/**
 * Issue 33, "It ignores the call's context": dispatched with context {customer_name: "Lee", project_name:
 * "Lakeview"} the agent said "calling on behalf of our team" and asked for a name. The contract's prompt variables
 * are used: the caller is greeted by name, the project is named, and what is known is confirmed instead of asked.
 */
import t from 'tap';
import { converse, textOf } from './helpers/converse.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';

const context = { customer_name: 'Lee', project_name: 'Lakeview' };

t.test('greeted by name, the project named, the name not asked', async (t) => {
  const c = converse(['A three bedroom flat, please.'], { context });
  const opening = textOf(c.turns[0]);
  t.ok(opening.startsWith(DEFAULT_AGENT.disclosure_script), 'the disclosure still comes first');
  t.match(opening, /Hi Lee, I'm calling about Lakeview\./);
  t.notMatch(opening, /your name/);
  t.ok(opening.endsWith(DEFAULT_AGENT.qualify_script[1].question), 'goes straight to what is not known');
  t.equal(c.extracted.customer_name, 'Lee');
  t.equal(c.extracted.intent, 'A three bedroom flat');
});

t.test('a known budget tier is confirmed, not asked', async (t) => {
  const ctx = { ...context, budget_tier: '80 lakh' };
  const yes = converse(['a villa', 'Yes, that is right'], { context: ctx });
  t.match(textOf(yes.turns[1]), /I have your budget as 80 lakh\. Is that still right\?/);
  t.equal(yes.extracted.budget, '8000000 INR', 'confirmed: the tier becomes the budget');
  t.match(yes.turns[1].at(-1), { type: 'listen', hint: { asking: 'budget', yesNo: true } });
  const no = converse(['a villa', 'No', 'one crore'], { context: ctx });
  t.equal(textOf(no.turns[2]), DEFAULT_AGENT.qualify_script[2].question, 'refused: the budget is asked, without an apology');
  t.equal(no.extracted.budget, '10000000 INR');
  const other = converse(['a villa', 'No, more like 90 lakh'], { context: ctx });
  t.equal(other.extracted.budget, '9000000 INR', 'a correction with an amount is taken at once');
});

t.test('the person who answers may not be the one named', async (t) => {
  const c = converse(['This is Ravi, Lee is my brother. I want a plot of land.'], { context });
  t.equal(c.extracted.customer_name, 'Ravi');
  t.equal(c.extracted.intent, 'a plot of land');
});

t.test('the listen hint names the context name for the recogniser', async (t) => {
  const c = converse([], { context });
  t.match(c.turns[0].at(-1), { type: 'listen', hint: { asking: 'intent', open: ['budget', 'scheduled_slot'], names: ['Lee'] } });
});
