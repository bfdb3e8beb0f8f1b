/**
 * Issue 33 through the model-backed dialog: the prompt carries the call's context (greet by name, name the project,
 * confirm the budget tier), the agent's knowledge, the honesty rule for bookings and brochures, and end reasons for
 * an opt-out and a call-back; callback_at and open_questions are fields the model may record.
 */
import t from 'tap';
import { buildMessages } from '../../src/providers/openai_chat/prompt.js';
import { toolDefinitions, recordFields, endReason } from '../../src/providers/openai_chat/tools.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';
import type { DialogTurnRequest } from '../../src/adapters/types.js';

const req: DialogTurnRequest = {
  callId: 'c', tools: ['calendar_booking'], history: [], callerText: 'Is there parking?', extracted: {}, timeZone: 'Asia/Kolkata',
  context: { customer_name: 'Lee', project_name: 'Lakeview', budget_tier: '80 lakh' },
  agent: { ...DEFAULT_AGENT, knowledge: [{ question: 'Is there parking?', answer: 'Two covered spaces per flat.' }, { answer: 'The metro is ten minutes away.' }] },
};

t.test('context, knowledge and honesty in the system prompt', async (t) => {
  const system = String(buildMessages(req, new Date('2026-11-22T18:00:00Z'))[0].content);
  t.match(system, /You are calling Lee: greet them by name/);
  t.match(system, /The call is about Lakeview/);
  t.match(system, /budget is on file as 80 lakh: confirm it/);
  t.match(system, /- Q: Is there parking\? A: Two covered spaces per flat\./);
  t.match(system, /- The metro is ten minutes away\./);
  t.match(system, /never invent facts/);
  t.match(system, /Never say a visit is booked or a brochure sent unless its tool answered with success/);
  t.match(system, /Reason opted_out when they ask not to be called again/);
});

t.test('the end_call tool takes opted_out and callback_requested; callback_at and open_questions are recordable', async (t) => {
  const end = toolDefinitions(req, 'Asia/Kolkata').find((d) => d.function.name === 'end_call')!;
  t.match(JSON.stringify(end), /opted_out.*callback_requested/);
  t.equal(endReason({ reason: 'opted_out' }), 'opted_out');
  const r = recordFields({ callback_at: '2026-11-23T17:00:00+05:30', open_questions: 'Do you allow pets?' }, req);
  t.same(r.events, [{ type: 'entity', key: 'callback_at', value: '2026-11-23T17:00:00+05:30' }, { type: 'entity', key: 'open_questions', value: 'Do you allow pets?' }]);
  t.match(recordFields({ callback_at: 'tomorrow' }, req).result, { refused: { callback_at: /ISO 8601/ } });
});

t.test('a turn spoken and not understood reaches the model as such, not as silence', async (t) => {
  const history = [{ role: 'agent' as const, text: 'What budget do you have in mind?' }];
  const last = (over: Partial<DialogTurnRequest>) => buildMessages({ ...req, history, callerText: '', ...over }, new Date('2026-11-22T18:00:00Z')).at(-1);
  t.same(last({ unheard: true }), { role: 'user', content: '(the caller said something the speech recognition did not understand)' });
  t.same(last({}), { role: 'user', content: '(the caller is silent)' });
});
