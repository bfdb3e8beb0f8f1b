/**
 * Caller lines for the recogniser's benches, written for this bench (not taken from the speech-dev set): answers the
 * grammars hold, and everyday speech they do not, which must be rejected.
 */
import { spokenToText } from '../src/speech/ears/reading.js';

export const IN_GRAMMAR = [
  'My name is Rahul.', 'This is Anjali.', 'Vikram here.', 'Hi, I am Sunil.', 'Deepak.',
  'We are looking for a three bedroom apartment.', 'I want a villa.', 'We need a plot.', 'A two B H K flat.',
  'About sixty lakh.', 'Two crore rupees.', 'My budget is around ninety lakh.', 'Fifty thousand dollars.', 'One point five crore.',
  'Tomorrow at ten in the morning.', 'Saturday afternoon.', 'Next Monday at four p m.', 'Friday evening works for me.',
  'Can I speak to a real person?', 'Call me later.', 'Yes.', 'No thanks.', 'Who is this?', 'Stop calling me.', 'Not interested.',
  'I am Pooja, I want a house, budget eighty lakh.', 'My name is Arjun and my budget is one crore.',
];
export const OUT_OF_GRAMMAR = [
  'I had pasta for dinner yesterday.', 'The weather has been really strange this week.', 'My daughter starts school in June.',
  'What is the capital of France?', 'I think the train was late again.', 'Please send the documents by email.',
  'The football match was cancelled because of rain.', 'I need to check with my wife first.', 'Hang on, somebody is at the door.',
  'How did you get this number?', 'The kitchen needs a new coat of paint.', 'We went to the market on foot.',
];
/** Replies to a yes/no question as people give them, with what the dialog must read them as. */
export const YES_NO_REPLIES: Array<[string, 'yes' | 'no']> = [
  ...['Yes.', 'Yeah.', 'Sure.', 'Okay.', 'Yes please.', 'Yes, that works.', 'Yeah, sounds good.', 'Sounds good.', 'Alright.',
    'Absolutely.', 'Definitely.', 'Yes, go ahead.', 'That works.', 'Yes, that is right.', 'Of course.', 'Correct.',
    'Yep, that is fine.'].map((l) => [l, 'yes'] as [string, 'yes']),
  ...['No.', 'Nope.', 'No thanks.', 'No, that is all.', 'Not really.', 'No, not yet.', 'Nothing else, thank you.',
    "No, that's it.", 'Nah.'].map((l) => [l, 'no'] as [string, 'no']),
];
/** Answers said while thinking, as people do ("my name is, um, Rahul"), with the field each answers. */
export const HESITANT: Array<[string, 'customer_name' | 'intent' | 'budget' | 'scheduled_slot']> = [
  ['My name is, um, Rahul.', 'customer_name'], ['Uh, this is, uh, Anjali.', 'customer_name'],
  ['We need, um, a villa.', 'intent'], ['I want a, uh, three bedroom flat.', 'intent'],
  ['My budget is, uh, eighty lakh.', 'budget'], ['Uh, about, um, sixty lakh.', 'budget'],
  ['Tomorrow at, uh, ten in the morning.', 'scheduled_slot'], ['Saturday, um, afternoon.', 'scheduled_slot'],
];
/** Budgets and times in everyday words ("fifty lakh only", "around eleven"), with the field each answers. */
export const PHRASED: Array<[string, 'budget' | 'scheduled_slot']> = [
  ['Fifty lakh only.', 'budget'], ['Eighty lakh rupees only.', 'budget'], ['Not more than fifty lakh.', 'budget'],
  ['Fifty to sixty lakh.', 'budget'], ['Under one crore.', 'budget'], ['Half a crore.', 'budget'],
  ['Sunday morning around eleven.', 'scheduled_slot'], ['Tomorrow at around four p m.', 'scheduled_slot'],
  ['Saturday around three in the afternoon.', 'scheduled_slot'],
];

/** Needs said with where they are wanted, and the need heard without the place (the grammar cannot spell a place). */
export const WITH_PLACE: Array<[string, string]> = [
  ['We want a villa near the school.', 'we want a villa'], ['A flat in Whitefield.', 'a flat'],
  ['A two bedroom apartment close to my office.', 'a two bedroom apartment'], ['Looking for a plot near the highway.', 'looking for a plot'],
  ['I want a house next to my parents.', 'i want a house'],
];

/** Names no list of common first names holds, said as a name is: heard right only by open speech-to-text, so rejected. */
export const UNLISTED_NAMES = [
  'My name is Harpreet.', 'I am Venkatesh.', 'This is Siobhan.', 'My name is Thaddeus.', "I'm Oluwaseun.",
  'My name is Bartholomew.', 'This is Ingrid.', 'Call me Ezekiel.',
];

/** Budgets said with a teen and with its ten ("sixteen lakh", "sixty lakh"): to the model they differ in one phone. */
export const TEENS_AND_TENS = [
  'Thirteen lakh.', 'Thirty lakh.', 'Fourteen thousand dollars.', 'Forty thousand dollars.', 'About fifteen lakh.',
  'About fifty lakh.', 'Sixteen crore.', 'Sixty crore.', 'My budget is seventeen lakh.', 'My budget is seventy lakh.',
  'Eighteen lakh rupees.', 'Eighty lakh rupees.', 'Up to nineteen thousand.', 'Up to ninety thousand.',
];

// words that carry no value: "uh two bhk flat" for "A two B H K flat" is the flat that was asked for
const FILLERS = new Set(['um', 'uh', 'er', 'hmm', 'well', 'so', 'okay', 'please', 'thanks', 'thank', 'you', 'a', 'an']);
/** A line, or the recogniser's text of it, as the dialog reads it with fillers dropped: equal when heard right. */
export const asRead = (s: string): string => spokenToText(s.toLowerCase().replace(/[^a-z0-9:' ]/g, ' ').split(/\s+/).filter((w) => w && !FILLERS.has(w)))
  .split(' ').filter((w) => !FILLERS.has(w)).join(' ');
