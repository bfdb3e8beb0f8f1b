import t from 'tap';
import { extractBudget, extractIntent, extractName, qualificationScore, wantsBrochure, wantsHuman, declines } from '../../src/dialog/index.js';

t.test('names', async (t) => {
  t.equal(extractName('My name is Anna Lee.'), 'Anna Lee');
  t.equal(extractName("I'm priya sharma"), 'Priya Sharma');
  t.equal(extractName('Chen Wei'), 'Chen Wei');
  t.equal(extractName("It's Anna speaking."), 'Anna');
  t.equal(extractName('Who is this?'), undefined);
  t.equal(extractName('I am not interested'), undefined);
  t.equal(extractName('well I think it is going to be a long story really'), undefined, 'too many words for a name');
  // answers to the name question that are no name: a time, or who the home is for
  for (const said of ['Next week sometime.', 'It is for my son.', 'Tomorrow maybe.', 'After lunch.', 'For my parents.', 'This is it.']) {
    t.equal(extractName(said), undefined, said);
  }
});

t.test('intent', async (t) => {
  t.equal(extractIntent('I am looking for a two bedroom apartment.'), 'a two bedroom apartment');
  t.equal(extractIntent("We're interested in an office space, can you send details?"), 'an office space');
  t.equal(extractIntent('yes'), undefined);
  t.equal(extractIntent('send me the brochure'), undefined, 'a request is not an intent');
  t.equal(extractIntent('A villa, and send me the details'), 'A villa');
  t.equal(extractIntent("I don't know really"), undefined);
  // a sentence about something else is no need (open speech-to-text hears everyday speech word for word)
  for (const said of ['I had pasta for dinner yesterday.', 'My daughter starts school in June.', 'The kitchen needs a new coat of paint.',
    'We went to the market on foot.', 'I live in Bandra with my family.', 'Sorry, the line is bad.', 'The last one was too expensive.']) {
    t.equal(extractIntent(said), undefined, said);
  }
  for (const [said, need] of [["I'd like a sea-facing flat.", 'a sea-facing flat'], ["I'm thinking of a villa.", 'a villa'],
    ['We prefer a ground floor unit.', 'a ground floor unit'], ['Something close to the metro.', 'Something close to the metro'],
    ['The two bedroom one.', 'The two bedroom one'], ['Looking to buy a plot.', 'Looking to buy a plot']]) {
    t.equal(extractIntent(said), need, said);
  }
  // a price said with the need is the budget's, not part of the need; a need is the clause that names a thing
  for (const [said, need] of [['I want a villa for 80 lakh.', 'a villa'], ['A three bedroom flat under one crore.', 'A three bedroom flat'],
    ['We need a plot in the range of fifty lakh.', 'a plot'], ['Around fifty lakh, a villa.', 'a villa'],
    ['Fifty lakh for a two bedroom flat.', 'a two bedroom flat'], ['A 3 BHK flat.', 'A 3 BHK flat'],
    ['We are two people, a small flat is fine.', 'a small flat'], ['A villa would do.', 'A villa'], ['A flat, thank you.', 'A flat']]) {
    t.equal(extractIntent(said), need, said);
  }
  for (const said of ['I am looking for something around fifty lakh.', 'One crore is my limit.', 'Fifty lakh, not more.',
    'I already have a flat, thanks.', 'Hang on, my house is on fire.']) {
    t.equal(extractIntent(said), undefined, said);
  }
});

t.test('budget needs an amount', async (t) => {
  t.equal(extractBudget('My budget is around 400,000 dollars.'), '400,000 dollars');
  t.equal(extractBudget('about $350,000'), '$350,000');
  t.equal(extractBudget('50 lakh'), '50 lakh');
  t.equal(extractBudget('maybe 1.2 million dollars'), '1.2 million dollars');
  t.equal(extractBudget('₹80 lakh'), '₹80 lakh');
  t.equal(extractBudget('I have 3 kids'), undefined);
  t.equal(extractBudget('between 300 and 400 thousand'), '400 thousand', 'an amount with a unit wins');
  t.equal(extractBudget('maybe 450000'), '450000');
  t.equal(extractBudget('not decided'), undefined);
});

t.test('intents of the caller', async (t) => {
  t.ok(wantsHuman('Can I talk to a real person?'));
  t.ok(wantsHuman('supervisor please'));
  t.ok(wantsHuman('can I talk to an agent'));
  t.ok(wantsHuman('agent'));
  t.notOk(wantsHuman('I am a real estate agent myself'));
  t.notOk(wantsHuman('I am looking for an apartment'));
  t.ok(wantsBrochure('can you send me the brochure'));
  t.ok(wantsBrochure('please send me more details'));
  t.notOk(wantsBrochure('my name is Anna'));
  t.ok(declines('not interested'));
  t.ok(declines('Bye.'));
  t.notOk(declines('My name is Anna Bye'));
});

t.test('qualification score is the weighted share gathered, 0-100', async (t) => {
  const fields = ['customer_name', 'intent', 'budget', 'scheduled_slot'];
  t.equal(qualificationScore(fields, {}), 0);
  t.equal(qualificationScore(fields, { customer_name: 'A' }), 15);
  t.equal(qualificationScore(fields, { customer_name: 'A', intent: 'x', budget: '1' }), 70);
  t.equal(qualificationScore(fields, { customer_name: 'A', intent: 'x', budget: '1', scheduled_slot: 's' }), 100);
  t.equal(qualificationScore(['customer_name', 'move_in'], { move_in: 'soon' }), 40);
  t.equal(qualificationScore([], { customer_name: 'A' }), 0);
});
