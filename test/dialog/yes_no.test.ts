/**
 * A custom step asked as a yes/no question is answered the ways people say yes and no: "sounds good", "absolutely",
 * "yes, that works" are a yes. Before, only a bare yes word was: "Sounds good." was stored as the answer's words.
 */
import t from 'tap';
import { converse } from './helpers/converse.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';

const agent = { ...DEFAULT_AGENT, qualify_script: [{ field: 'site_visit', question: 'Would you like to visit the site?' }] };

for (const [reply, value] of [['Sounds good.', 'yes'], ['Absolutely.', 'yes'], ['Yes, that works.', 'yes'], ['Go ahead.', 'yes'],
  ['That works for me.', 'yes'], ['Nah.', 'no'], ['No, not yet.', 'no']] as const) {
  t.test(`"${reply}" to a yes/no question`, async (t) => {
    t.equal(converse([reply], { agent }).extracted.site_visit, value);
  });
}

t.test('"anything else?" answered the ways the offline ears hear it closes the call', async (t) => {
  for (const reply of ['nothing else thank you', 'no that is all', "no that's it", 'nah']) {
    const c = converse(['Anna Lee', 'a flat', '80 lakh', 'tomorrow at 11 am', reply]);
    t.same(c.last.at(-1), { type: 'end_call', reason: 'completed' }, reply);
  }
});
