/**
 * Issue 33, intents at any point of the call. What broke: "Sorry, who is this?" got the question repeated; after the
 * last question a brochure request, a question about parking and "bye" each got the same goodbye; "stop calling"
 * was a plain decline (the number was never put on the DND list); silence was counted as failed answers.
 */
import t from 'tap';
import { converse, textOf } from './helpers/converse.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';

const NAME_Q = DEFAULT_AGENT.qualify_script[0].question;
const ALL_ANSWERS = ['Anna', 'a villa', '50 lakh', 'tomorrow at 10 am'];

t.test('who is this / why are you calling: answered from the disclosure and the project, then the question again', async (t) => {
  for (const ask of ['Sorry, who is this?', 'Why are you calling me?', 'What is this about?', 'Are you a robot?']) {
    const c = converse([ask, 'Anna'], { context: { project_name: 'Lakeview' } });
    const reply = textOf(c.turns[1]);
    t.match(reply, /AI assistant for our team, about Lakeview/, ask);
    t.ok(reply.endsWith(NAME_Q), 'the pending question follows');
    t.notMatch(reply, /didn't catch/, 'not counted as a failed answer');
    t.equal(c.extracted.customer_name, 'Anna');
  }
});

t.test('a person, please: handed over as before', async (t) => {
  const c = converse(['Can I talk to someone real? A real person please']);
  t.same(c.last.at(-1), { type: 'escalate', reason: 'caller_requested_human' });
});

t.test('call me later: the time asked, or asked for, moved inside the calling hours', async (t) => {
  const direct = converse(['Anna', 'I am driving, call me back tomorrow at 5 pm']);
  t.equal(direct.extracted.callback_at, '2026-11-23T17:00:00+05:30');
  t.same(direct.last.at(-1), { type: 'end_call', reason: 'callback_requested' });
  t.match(textOf(direct.last), /noted Monday, November 23 at 5:00 PM for a call back/);
  const asked = converse(['Not a good time, call me later', 'day after tomorrow in the evening']);
  t.match(textOf(asked.turns[1]), /When would be a good time to call you back\?/);
  t.match(asked.turns[1].at(-1), { type: 'listen', hint: { asking: 'callback_at' } });
  t.equal(asked.extracted.callback_at, '2026-11-24T18:00:00+05:30');
  const late = converse(['call me back tomorrow at 11 pm']);
  t.equal(late.extracted.callback_at, '2026-11-24T09:00:00+05:30', '11 pm is outside 09:00-21:00: the next opening');
  t.match(textOf(late.last), /inside our calling hours/);
  const vague = converse(['call me later', 'whenever, I do not know']);
  t.same(vague.last.at(-1), { type: 'end_call', reason: 'callback_requested' }, 'no time given: noted for the team');
  t.equal(vague.extracted.callback_at, undefined);
});

t.test('not interested: a polite end', async (t) => {
  const c = converse(['No thanks, I am not interested']);
  t.same(c.last.at(-1), { type: 'end_call', reason: 'caller_declined' });
  t.match(textOf(c.last), /Thank you for your time\. Goodbye\./);
});

t.test('stop calling / do not call me again: the call ends opted_out (the platform puts the number on DND)', async (t) => {
  for (const say of ['Stop calling me', "Please don't call me again", 'Remove my number from your list', 'I am not interested, stop calling']) {
    const c = converse(['Anna', say]);
    t.same(c.last.at(-1), { type: 'end_call', reason: 'opted_out' }, say);
    t.match(textOf(c.last), /don't want any more calls/);
    t.match(c.last.find((e) => e.type === 'tool_call'), { arguments: { outcome: 'opted_out' } }, 'the CRM hears it too');
  }
});

t.test('wrong number', async (t) => {
  const c = converse(['Sorry, you have the wrong number']);
  t.same(c.last.at(-1), { type: 'end_call', reason: 'wrong_number' });
});

t.test('repeat please: the question again, not a failed attempt', async (t) => {
  const c = converse(['Sorry, could you repeat that?', 'pardon?', 'Anna']);
  t.equal(textOf(c.turns[1]), `Of course. ${NAME_Q}`);
  t.equal(textOf(c.turns[2]), `Of course. ${NAME_Q}`);
  t.equal(c.extracted.customer_name, 'Anna');
  const forever = converse(['repeat that', 'what?', 'say that again', 'come again', 'pardon']);
  t.match(forever.last.at(-1), { type: 'escalate' }, 'but not forever');
});

t.test('silence: prompted once, then the call ends', async (t) => {
  const c = converse(['', '']);
  t.equal(textOf(c.turns[1]), `Are you still there? ${NAME_Q}`);
  t.same(c.last.at(-1), { type: 'end_call', reason: 'no_response' });
  const back = converse(['', 'Yes, sorry, my name is Anna.']);
  t.equal(back.extracted.customer_name, 'Anna', 'a caller who comes back goes on');
});

t.test('after the last question: requests and questions are answered, then a goodbye', async (t) => {
  const c = converse([...ALL_ANSWERS, 'Can you send me the brochure?', 'Is there parking?', 'bye'], {},
    { results: { messaging_brochure: true } });
  t.match(textOf(c.turns[4]), /everything I needed\. Is there anything else I can help you with\?$/);
  t.match(textOf(c.turns[5]), /^I've sent you the brochure\. Is there anything else/);
  t.match(textOf(c.turns[6]), /noted your question.*anything else/);
  t.same(c.last.at(-1), { type: 'end_call', reason: 'completed' });
  t.match(textOf(c.last), /Goodbye/);
  t.equal(c.extracted.open_questions, 'Is there parking?', 'the open question is recorded');
  const crm = c.turns.flat().filter((e) => e.type === 'tool_call' && e.tool === 'crm_sync');
  t.equal(crm.length, 1, 'the CRM gets the lead once, when the script completes');
});
