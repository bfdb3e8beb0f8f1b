import t from 'tap';
import { questionsOf, stepsFromText, knownFieldOf } from '../../src/dialog/script_text.js';

const PROSE = `You are calling on behalf of Acme Realty about the Lakeview project. Be warm and brief.
First confirm who you are speaking with: may I know who I am speaking with? Then ask what kind of home they are looking for?
- What budget do you have in mind?
- Are you a first-time buyer?
Finally: when would suit you for a site visit? Thank them and end the call.`;

t.test('one step per question sentence or line, mapped to the field it asks for', async (t) => {
  t.same(questionsOf(PROSE), [
    'May I know who I am speaking with?', 'What kind of home are you looking for?', 'What budget do you have in mind?',
    'Are you a first-time buyer?', 'When would suit you for a site visit?',
  ]);
  t.same(stepsFromText(PROSE).map((s) => s.field), ['customer_name', 'intent', 'budget', 'first_time_buyer', 'scheduled_slot']);
});

t.test('known fields', async (t) => {
  t.equal(knownFieldOf('May I have your name, please?'), 'customer_name');
  t.equal(knownFieldOf('What are you looking for today?'), 'intent');
  t.equal(knownFieldOf('How much are you planning to spend?'), 'budget');
  t.equal(knownFieldOf('What time works for a call back?'), 'scheduled_slot');
  t.equal(knownFieldOf('Do you have pets?'), undefined);
});

t.test('custom fields are unique and snake_case; a repeated known field keeps its first question', async (t) => {
  const steps = stepsFromText('Do you have pets?\nDo you have pets at home?\nWhat is your name?\nAnd your full name?');
  t.same(steps.map((s) => s.field), ['pets', 'pets_home', 'customer_name']);
  for (const s of steps) t.match(s.field, /^[a-z][a-z0-9_]{0,63}$/);
  t.same(stepsFromText('Just be nice. No questions here.'), []);
  t.same(stepsFromText('Ask them whether they have a home loan?'), [{ field: 'home_loan', question: 'Do you have a home loan?' }]);
});

// Issue 33: "Ask about budget, intent and a good time for a site visit." was refused (400, "the text holds no question").
t.test('plain instructions: one step per topic they name, known topics with their usual question', async (t) => {
  const { stepsFromTopics, stepsOfScriptText } = await import('../../src/dialog/script_text.js');
  t.same(stepsFromTopics('Ask about budget, intent and a good time for a site visit.'), [
    { field: 'budget', question: 'What budget do you have in mind?' },
    { field: 'intent', question: 'What are you looking for today?' },
    { field: 'scheduled_slot', question: 'When would suit you for a site visit?' },
  ]);
  t.same(stepsFromTopics('Be friendly. Find out their name, their requirement, their preferred location and whether they want a call back.').map((s) => s.field),
    ['customer_name', 'intent', 'preferred_location', 'scheduled_slot']);
  t.match(stepsFromTopics('Collect their preferred location.')[0], { question: 'Could you tell me about your preferred location?' });
  const defaults = [{ field: 'customer_name', question: 'Name?' }];
  t.same(stepsOfScriptText('Just be nice. Ask nothing.', defaults), defaults, 'no topic: the default steps, never a refusal');
  t.same(stepsOfScriptText('What is your name? Ask about budget.', defaults).map((s) => s.field), ['customer_name'], 'questions win when there are some');
});
