/**
 * What broke: a caller's "Okay." while the agent was asking for a name became customer_name "Okay" and the agent
 * said "Thank you, Okay". A backchannel (the lexicon of src/audio/backchannel.ts) never answers a question.
 */
import t from 'tap';
import { converse, textOf } from './helpers/converse.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';

const NAME_Q = DEFAULT_AGENT.qualify_script[0].question;

for (const ack of ['Okay.', 'uh huh', 'right', 'Yeah.', 'mm hmm', 'All right.', 'got it']) {
  t.test(`"${ack}" while the name is asked`, async (t) => {
    const c = converse([ack, 'My name is Anna Lee.']);
    t.equal(c.turns[1].filter((e) => e.type === 'entity').length, 0, 'nothing extracted');
    t.equal(textOf(c.turns[1]), NAME_Q, 'the question again, without an apology');
    t.notMatch(textOf(c.turns[1]), /Thank you/);
    t.equal(c.extracted.customer_name, 'Anna Lee', 'the real answer still fills it');
  });
}

t.test('backchannels never escalate as unanswered', async (t) => {
  const c = converse(['Okay.', 'uh huh', 'right', 'okay', 'Anna Lee']);
  t.notOk(c.turns.flat().some((e) => e.type === 'escalate'));
  t.equal(c.extracted.customer_name, 'Anna Lee');
});

t.test('a cut opening: the caller heard no question, so "Okay." answers nothing', async (t) => {
  const agent = { ...DEFAULT_AGENT };
  const c = converse(['Okay.'], { agent, history: [{ role: 'agent', text: 'This…' }] }, { callerFirst: true });
  t.equal(c.turns[0].filter((e) => e.type === 'entity').length, 0);
});

t.test('an affirmative acknowledgement answers a yes/no question of a custom step', async (t) => {
  const agent = { ...DEFAULT_AGENT, qualify_script: [{ field: 'site_visit', question: 'Would you like to visit the site?' }] };
  const c = converse(['Okay.'], { agent });
  t.equal(c.extracted.site_visit, 'yes');
  const no = converse(['No, not now.'], { agent });
  t.equal(no.extracted.site_visit, 'no');
});
