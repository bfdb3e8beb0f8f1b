import t from 'tap';
import { planTurn, BROCHURE_CONFIRMATION } from '../../src/dialog/index.js';
import type { DialogEvent, DialogTurnRequest } from '../../src/adapters/types.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';
import { ALL_TOOLS, NOW, converse as play, textOf } from './helpers/converse.js';

/** Plays a scripted caller against the engine; every turn's events, the final extracted data, and the tool calls. */
function converse(callerLines: Array<string | null>, over: Partial<DialogTurnRequest> = {}, opts: Parameters<typeof play>[2] = {}) {
  const c = play(callerLines, over, opts);
  const all = c.turns.flat();
  return { ...c, all, tools: all.filter((e) => e.type === 'tool_call') as Extract<DialogEvent, { type: 'tool_call' }>[] };
}

// Issue 33 changed the end: after the last question the agent asks whether there is anything else (no fixed
// goodbye), and says "booked" only when the calendar tool succeeded (here: it did).
t.test('full qualify: disclosure first, every field extracted, slot booked, CRM synced, polite end', async (t) => {
  const c = converse(['My name is Anna Lee.', 'I am looking for a two bedroom apartment.', 'My budget is around 400,000 dollars.', 'Next Tuesday at 3 pm works for me.', "No, that's all, thanks."],
    {}, { results: { calendar_booking: true, crm_sync: true } });
  t.ok(textOf(c.turns[0]).startsWith(DEFAULT_AGENT.disclosure_script), 'disclosure is spoken first');
  t.ok(textOf(c.turns[0]).endsWith(DEFAULT_AGENT.qualify_script[0].question));
  t.same(c.extracted, {
    customer_name: 'Anna Lee', intent: 'a two bedroom apartment', budget: '400000 USD',
    scheduled_slot: '2026-11-24T15:00:00+05:30', qualification_score: 100,
  });
  t.same(c.tools.map((x) => x.tool), ['calendar_booking', 'crm_sync']);
  t.equal(c.tools[0].arguments.start, '2026-11-24T15:00:00+05:30');
  t.equal(c.tools[1].arguments.outcome, 'completed');
  t.same(c.last.at(-1), { type: 'end_call', reason: 'completed' });
  t.match(textOf(c.turns[4]), /booked for a site visit on Tuesday, November 24 at 3:00 PM.*anything else/);
  t.match(textOf(c.last), /Goodbye\.$/);
  t.equal(c.turns.length, 6, 'one question per turn, then the wrap-up');
});

t.test('entity events come as soon as a field is learnt', async (t) => {
  const c = converse(['Ravi Kumar', 'I want a villa with a pool']);
  t.same(c.turns[1].filter((e) => e.type === 'entity'), [{ type: 'entity', key: 'customer_name', value: 'Ravi Kumar' }]);
  t.same(c.turns[2].filter((e) => e.type === 'entity'), [{ type: 'entity', key: 'intent', value: 'a villa with a pool' }]);
});

t.test('escalates at once when the caller asks for a person', async (t) => {
  for (const ask of ['Can I speak to a real person?', 'get me your manager', 'I want a human', 'put me through to an agent']) {
    const c = converse(['My name is Anna Lee.', ask]);
    t.same(c.last.at(-1), { type: 'escalate', reason: 'caller_requested_human' }, ask);
    t.match(textOf(c.last), /connect you with a colleague/);
    t.equal(c.extracted.qualification_score, 15, 'score from what was gathered (name only)');
    t.same(c.tools.map((x) => x.tool), ['crm_sync'], 'CRM still gets the lead');
  }
});

t.test('a turn spoken and not understood is asked again, and counts as a failed attempt', async (t) => {
  const c = converse(['My name is Anna Lee.', null, 'I am looking for a flat.']);
  t.equal(textOf(c.turns[2]), "Sorry, I didn't catch that. What are you looking for today?");
  t.same(c.turns[2].filter((e) => e.type === 'listen'), c.turns[1].filter((e) => e.type === 'listen'), 'the same grammar listens');
  t.equal(c.extracted.intent, 'a flat', 'the answer after it is taken');
  const twice = converse(['My name is Anna Lee.', null, null]);
  t.same(twice.last.at(-1), { type: 'escalate', reason: 'cannot_proceed:intent' }, 'twice on one question: a colleague');
  const atEnd = converse(['Anna Lee', 'a flat', '80 lakh', 'tomorrow at 11 am', null, 'no thanks']);
  t.match(textOf(atEnd.turns[5]), /^Sorry, I didn't catch that\. Is there anything else/, 'after the script: asked again, not closed');
  t.same(atEnd.last.at(-1), { type: 'end_call', reason: 'completed' });
  const cb = converse(['call me later', null]);
  t.match(textOf(cb.last), /^Sorry, I didn't catch that\. When would be a good time to call you back\?$/);
  const cbTwice = converse(['call me later', null, null]);
  t.same(cbTwice.last.at(-1), { type: 'end_call', reason: 'callback_requested' }, 'a call-back time missed twice: noted without one');
  const silence = converse(['My name is Anna Lee.', '']);
  t.match(textOf(silence.turns[2]), /^Are you still there\?/, 'silence is still silence');
});

t.test('a name missed twice is gone on without: the call is for the rest', async (t) => {
  const c = converse([null, null, 'I am looking for a flat.', '80 lakh', 'tomorrow at 11 am', 'no thanks'], {}, { results: { calendar_booking: true, crm_sync: true } });
  t.match(textOf(c.turns[1]), /^Sorry, I didn't catch that\. .*name/, 'asked again once');
  t.equal(textOf(c.turns[2]), "Sorry, I didn't catch that. What are you looking for today?", 'then the next question, no colleague');
  t.notOk(c.all.some((e) => e.type === 'escalate'));
  t.same(c.last.at(-1), { type: 'end_call', reason: 'completed' }, 'and the call completes');
  t.equal(c.extracted.customer_name, undefined);
  t.equal(c.extracted.intent, 'a flat');
  t.match(textOf(c.turns[6]), /^Thank you for your time\. Goodbye\.$/, 'no name to thank');
  const typed = converse(['banana', 'I would rather not say', 'a villa']);
  t.equal(textOf(typed.turns[2]), "Sorry, I didn't catch that. What are you looking for today?", 'a typed non-name twice: the same');
  t.equal(typed.extracted.intent, 'a villa');
  const late = converse([null, null, 'My name is Ravi and I want a villa.']);
  t.equal(late.extracted.customer_name, 'Ravi', 'a name given later is still taken');
});

t.test('two failed attempts at the same question escalate as cannot_proceed', async (t) => {
  const c = converse(['My name is Anna Lee.', 'I am looking for a flat.', 'no idea', 'I really could not say']);
  t.match(textOf(c.turns[3]), /^Sorry, I didn't catch that\. What budget do you have in mind\?$/);
  t.same(c.last.at(-1), { type: 'escalate', reason: 'cannot_proceed:budget' });
  const hmm = converse(['My name is Anna Lee.', 'I am looking for a flat.', 'hmm', 'no idea', 'I really could not say']);
  t.equal(textOf(hmm.turns[3]), 'What budget do you have in mind?', 'a backchannel hears the question again, no apology');
  t.same(hmm.last.at(-1), { type: 'escalate', reason: 'cannot_proceed:budget' }, 'and is not counted as an attempt');
  t.equal(hmm.turns.length, 6);
  // issue 33: silence is prompted once, then the call ends (it used to escalate as an unanswered question)
  const silent = converse(['', '']);
  t.match(textOf(silent.turns[1]), /^Are you still there\?/);
  t.same(silent.last.at(-1), { type: 'end_call', reason: 'no_response' }, 'no words at all (e.g. non-SimVoice audio)');
});

t.test('a day without a time is re-asked with a hint, then booked', async (t) => {
  const c = converse(['Anna', 'an office space downtown', '50 lakh', 'Tuesday', 'Tuesday at 11 am']);
  t.match(textOf(c.turns[4]), /I need a time as well as a day\. When would suit you/);
  t.equal(c.extracted.scheduled_slot, '2026-11-24T11:00:00+05:30');
});

t.test('tools fire only when enabled for the call', async (t) => {
  const lines = ['Anna', 'a villa, can you send me the brochure?', '50 lakh', 'tomorrow at 10 am'];
  t.same(converse([...lines, 'no']).tools.map((x) => x.tool), ['messaging_brochure', 'calendar_booking', 'crm_sync']);
  t.same(converse(lines, { tools: ['crm_sync'] }).tools.map((x) => x.tool), ['crm_sync']);
  const none = converse(lines, { tools: [] });
  t.same(none.tools, []);
  t.notMatch(textOf(none.all), /brochure|booked/, 'does not promise what it cannot do');
  t.equal(none.extracted.qualification_score, 100);
});

t.test('the brochure is sent once even if asked again', async (t) => {
  const c = converse(['Anna', 'send me the brochure', 'a villa please send me more details', '50 lakh', 'tomorrow at 10 am'], {}, { results: { messaging_brochure: true } });
  t.equal(c.tools.filter((x) => x.tool === 'messaging_brochure').length, 1);
  t.equal(c.all.filter((e) => e.type === 'text' && e.text === BROCHURE_CONFIRMATION).length, 1);
});

// issue 33: "stop calling" is now an opt-out (test/dialog/opt_out.test.ts); a plain decline still ends like this
t.test('declining ends the call politely and still syncs the CRM', async (t) => {
  const c = converse(['I am not interested']);
  t.same(c.last.at(-1), { type: 'end_call', reason: 'caller_declined' });
  t.match(textOf(c.last), /Thank you for your time\. Goodbye\./);
  t.same(c.tools.map((x) => [x.tool, x.arguments.outcome]), [['crm_sync', 'declined']]);
});

t.test('custom script fields and context placeholders', async (t) => {
  const agent = {
    ...DEFAULT_AGENT,
    disclosure_script: 'Hi {{customer_name}}, this is an AI assistant about {{project_name}}.',
    qualify_script: [{ field: 'customer_name', question: 'Who am I speaking with?' }, { field: 'move_in', question: 'When do you plan to move in?' }],
  };
  // issue 33: a name the context gives is known, not asked again
  const c = converse(['In the spring', 'no'], { agent, context: { customer_name: 'Maria', project_name: 'Palm Towers' } });
  t.equal(textOf(c.turns[0]), 'Hi Maria, this is an AI assistant about Palm Towers. When do you plan to move in?');
  t.same(c.extracted, { customer_name: 'Maria', move_in: 'In the spring', qualification_score: 100 });
  const noCtx = converse([], { agent, context: {} });
  t.equal(textOf(noCtx.turns[0]), 'Hi, this is an AI assistant about. Who am I speaking with?', 'missing variables drop out');
});

t.test('deterministic: the same request gives the same events', async (t) => {
  const a = converse(['Anna', 'a villa', '50 lakh', 'tomorrow at 10 am']);
  const b = converse(['Anna', 'a villa', '50 lakh', 'tomorrow at 10 am']);
  t.same(a.turns, b.turns);
});
