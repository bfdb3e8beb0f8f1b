/**
 * Answers as people say them, through the recogniser in two Flite voices over a phone line: with hesitations ("my
 * budget is, uh, eighty lakh"), and budgets and times in everyday words ("fifty lakhs only", "around eleven"). Before
 * the grammar held these, the decoder forced them onto the nearest path: a wrong value rather than a rejection. So
 * was a name the list lacks.
 */
import t from 'tap';
import { AFFIRMATIVE, NEGATIVE } from '../../src/dialog/yes_no.js';
import { recognise } from '../../src/speech/ears/recogniser.js';
import { closeSpeechPool } from '../../src/speech/pool.js';
import { phoneLine } from './helpers/phone_line.js';

t.teardown(closeSpeechPool);

const FIELDS = ['customer_name', 'intent', 'budget', 'scheduled_slot'];
const hear = async (text: string, voice: string, asking: string) => recognise(await phoneLine(text, voice), 8000, { asking, open: FIELDS });

t.test('answers with hesitations are heard whole: the "uh" is a word of the path, not speech left out', async (t) => {
  for (const voice of ['kal16', 'slt']) {
    const budget = await hear('My budget is, uh, eighty lakh.', voice, 'budget');
    t.match(budget.text, /^my budget is (up to )?eighty lakh$/, `${voice}: ${budget.path}`);
    const slot = await hear('Tomorrow at, uh, ten in the morning.', voice, 'scheduled_slot');
    t.equal(slot.text, 'tomorrow at 10 am', `${voice}: ${slot.path}`);
  }
});

t.test('budgets and times in everyday words', async (t) => {
  for (const voice of ['kal16', 'slt']) {
    t.equal((await hear('Eighty lakh rupees only.', voice, 'budget')).text, 'eighty lakh rupees only', voice);
    t.equal((await hear('Tomorrow at around four p m.', voice, 'scheduled_slot')).text, 'tomorrow at around 4 pm', voice);
    t.equal((await hear('Sunday morning around eleven.', voice, 'scheduled_slot')).text, 'sunday morning around eleven', voice);
  }
});

t.test("a need with its place: the place is left out, never heard as a budget or a name", async (t) => {
  // before the grammar held a place, "near the school" was forced onto the nearest answers: "we want a villa under
  // fifty lakh" (kal16, nothing asked), "eleven million thank you" (slt, the need asked)
  const lines: Array<[string, RegExp]> = [['We want a villa near the school.', /^we want (a )?villa$/], ['A flat in Whitefield.', /^a flat$/],
    ['A two bedroom apartment close to my office.', /^a two bedroom apartment$/]];
  for (const voice of ['kal16', 'slt']) {
    for (const asking of ['intent', '']) {
      for (const [line, need] of lines) {
        const heard = await hear(line, voice, asking);
        t.match(heard.text, need, `${voice}, ${asking || 'nothing'} asked: ${heard.path}`);
      }
    }
  }
});

t.test('a name the list lacks, the name asked: rejected, never stored as a listed name', async (t) => {
  // before the grammar heard an unlisted name as garbage, it took the nearest listed one: "My name is Harpreet" was
  // "my name is aarav" (kal16), "my name is sarah" (slt)
  const lines = ['My name is Harpreet.', 'I am Venkatesh.', 'This is Siobhan.', 'My name is Thaddeus.'];
  for (const voice of ['kal16', 'slt']) {
    for (const asking of ['customer_name']) {
      for (const line of lines) {
        const heard = await hear(line, voice, asking);
        t.equal(heard.text, '', `${voice}, ${asking || 'nothing'} asked: ${heard.path}`);
      }
      const listed = await hear('My name is Priya.', voice, asking);
      t.equal(listed.text, 'my name is priya', `a listed name is still heard (${voice}, ${asking || 'nothing'} asked): ${listed.path}`);
    }
  }
});

t.test('a yes or a no said with more words is heard, and read by the dialog as yes or no', async (t) => {
  // before the yes/no grammar held the dialog's phrases and what callers add to them, each of these was rejected
  // (the agent asked again): "yes, that works" and "yeah, sounds good" in all four voices
  const lines: Array<[string, RegExp]> = [['Yes, that works.', AFFIRMATIVE], ['Yeah, sounds good.', AFFIRMATIVE],
    ['Absolutely.', AFFIRMATIVE], ['No, that is all.', NEGATIVE]];
  for (const voice of ['kal16', 'rms']) {
    for (const [line, reading] of lines) {
      const heard = await recognise(await phoneLine(line, voice), 8000, { open: [], yesNo: true });
      t.match(heard.text, reading, `${voice}, ${line}: ${heard.path}`);
    }
  }
});
