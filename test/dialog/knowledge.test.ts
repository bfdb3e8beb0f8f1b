/**
 * Issue 33, "questions it can answer": after its last question the agent had one line for a question about
 * parking. The scripted engine answers from the agent's knowledge by word match (BM25), at any turn, and otherwise
 * says the team will follow up and records the question.
 */
import t from 'tap';
import { converse, textOf } from './helpers/converse.js';
import { lookupKnowledge } from '../../src/dialog/index.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';

const knowledge = [
  { question: 'Is there parking?', answer: 'Every flat comes with two covered parking spaces.' },
  { question: 'What is the price of a two bedroom flat?', answer: 'Two bedroom flats start at 85 lakh.' },
  { answer: 'The clubhouse has a swimming pool and a gym.' },
  { question: 'When is possession?', answer: 'Possession is planned for March 2028.' },
];
const agent = { ...DEFAULT_AGENT, knowledge };

t.test('BM25 picks the entry that shares the meaningful words', async (t) => {
  t.match(lookupKnowledge(knowledge, 'do you have parking for two cars?'), { answer: /covered parking/ });
  t.match(lookupKnowledge(knowledge, 'how much does a 2 bedroom flat cost, what price?'), { answer: /85 lakh/ });
  t.match(lookupKnowledge(knowledge, 'is there a swimming pool?'), { answer: /swimming pool/ });
  t.match(lookupKnowledge(knowledge, 'when can I get possession?'), { answer: /March 2028/ });
  t.equal(lookupKnowledge(knowledge, 'do you allow pets?'), undefined, 'nothing in common: no answer');
  t.equal(lookupKnowledge([], 'is there parking?'), undefined);
});

t.test('a question mid-script is answered, then the pending question goes on', async (t) => {
  const c = converse(['Anna', 'Is there parking?', 'a villa'], { agent });
  t.equal(textOf(c.turns[2]), `Every flat comes with two covered parking spaces. ${DEFAULT_AGENT.qualify_script[1].question}`);
  t.equal(c.extracted.intent, 'a villa');
});

t.test('after the last question: answered, then anything else; an unknown one is noted for the team', async (t) => {
  const c = converse(['Anna', 'a villa', '50 lakh', 'tomorrow at 10 am', 'Is there a gym?', 'Do you allow pets?', "no, that's all"], { agent });
  t.match(textOf(c.turns[5]), /^The clubhouse has a swimming pool and a gym\. Is there anything else/);
  t.match(textOf(c.turns[6]), /I don't have that information right now\. I've noted your question and the team will follow up/);
  t.equal(c.extracted.open_questions, 'Do you allow pets?');
  t.same(c.last.at(-1), { type: 'end_call', reason: 'completed' });
});

t.test('without a knowledge base every question is noted, never invented', async (t) => {
  const c = converse(['What is the price?'], {});
  t.match(textOf(c.turns[1]), /team will follow up/);
  t.equal(c.extracted.open_questions, 'What is the price?');
});
