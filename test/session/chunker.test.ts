/** The sentence chunker (src/session/chunker.ts): sentences out as soon as they are known to have ended. */
import t from 'tap';
import fc from 'fast-check';
import { SentenceChunker } from '../../src/session/chunker.js';

const chunk = (parts: string[]) => {
  const c = new SentenceChunker();
  const out = parts.flatMap((p) => c.push(p));
  const rest = c.flush();
  return rest ? [...out, rest] : out;
};

t.test('a sentence leaves once the next character shows it ended', async (t) => {
  const c = new SentenceChunker();
  t.same(c.push('Hello there, Ravi.'), [], 'the next character is not known yet');
  t.same(c.push(' How'), ['Hello there, Ravi.']);
  t.same(c.push(' are you today?'), []);
  t.equal(c.flush(), 'How are you today?');
});

t.test('terminal marks: . ! ? … and the Indic danda', async (t) => {
  t.same(chunk(['Great news! Your visit is booked. Anything else?']), ['Great news!', 'Your visit is booked.', 'Anything else?']);
  t.same(chunk(['आपका नाम क्या है। आपका बजट क्या है॥ धन्यवाद']), ['आपका नाम क्या है।', 'आपका बजट क्या है॥', 'धन्यवाद']);
  t.same(chunk(['Let me think… I can check that for you.']), ['Let me think…', 'I can check that for you.']);
});

t.test('numbers, abbreviations and initials do not end a sentence', async (t) => {
  t.same(chunk(['The price is 1.5 crore for the villa. Shall I book it?']), ['The price is 1.5 crore for the villa.', 'Shall I book it?']);
  t.same(chunk(['Dr. Rao will meet you, e.g. on Monday. A. P. J. Sharma too.']), ['Dr. Rao will meet you, e.g. on Monday.', 'A. P. J. Sharma too.']);
});

t.test('closing quotes stay with their sentence; line breaks end one', async (t) => {
  t.same(chunk(['He said "yes." Then he left.']), ['He said "yes."', 'Then he left.']);
  t.same(chunk(['Options:\n1 bedroom\n2 bedrooms']), ['Options:', '1 bedroom', '2 bedrooms']);
});

t.test('very short sentences go with the next one', async (t) => {
  t.same(chunk(['Sure. I can help with that.']), ['Sure. I can help with that.']);
});

t.test('any split of the text gives the same sentences', async (t) => {
  const text = 'Hello, Anita. Your budget is 80 lakh! Dr. Rao can show you the flat on Monday… Shall I book it? धन्यवाद। Bye.';
  const whole = chunk([text]);
  fc.assert(fc.property(fc.array(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: 12 }), (cuts) => {
    const at = [...new Set(cuts)].sort((a, b) => a - b);
    const parts = [0, ...at].map((from, i) => text.slice(from, at[i] ?? text.length));
    t.same(chunk(parts), whole);
  }), { numRuns: 200 });
});
