/**
 * Issue 33 item for the offline grammar recogniser: each turn that waits for an answer ends with a `listen` event
 * naming the field asked, whether it is yes/no, the other open fields (mixed initiative) and the context's name;
 * turns that end the call carry none. The hint survives the gRPC mapping.
 */
import t from 'tap';
import { converse } from './helpers/converse.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';
import { fromHintMsg, toHintMsg } from '../../src/adapters/grpc/dialog.js';

t.test('asking, open, yesNo, names', async (t) => {
  const c = converse(['Anna', 'a villa'], { context: { customer_name: 'Anna' } });
  t.same(c.turns[0].at(-1), { type: 'listen', hint: { asking: 'intent', open: ['budget', 'scheduled_slot'], names: ['Anna'] } });
  const yn = converse([], { agent: { ...DEFAULT_AGENT, qualify_script: [{ field: 'site_visit', question: 'Would you like to visit the site?' }, { field: 'city', question: 'Which city?' }] } });
  t.same(yn.turns[0].at(-1), { type: 'listen', hint: { asking: 'site_visit', yesNo: true, open: ['city'] } });
  const ended = converse(['stop calling']);
  t.notOk(ended.last.some((e) => e.type === 'listen'), 'an ending turn waits for nothing');
  t.equal(converse(['']).turns.flat().filter((e) => e.type === 'listen').length, 2, 'one per turn that asks');
  const done = converse(['Anna', 'a villa', 'fifty lakh', 'Friday at 4 pm']);
  t.same(done.last.at(-1), { type: 'listen', hint: { open: [], yesNo: true } }, '"anything else?" is a yes/no question: nothing else owed');
});

t.test('the hint crosses gRPC unchanged', async (t) => {
  const hint = { asking: 'budget', yesNo: true, open: ['scheduled_slot'], names: ['Lee'] };
  t.same(fromHintMsg(toHintMsg(hint)), hint);
  t.same(fromHintMsg(toHintMsg({ open: [] })), { open: [] });
});
