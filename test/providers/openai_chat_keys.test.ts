/**
 * The model-backed agent presses keys (an automated phone menu at the other end): the press_keys tool becomes a
 * `keys` dialog event the call sends as DTMF, with no follow-up request; digits outside 0-9, * and # go back to the
 * model as an error to correct. Against the local Chat Completions fake.
 */
import t from 'tap';
import type { DialogEvent, DialogTurnRequest } from '../../src/adapters/types.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';
import { OpenAiChatDialog } from '../../src/providers/openai_chat/dialog.js';
import { startFakeChat, textReply, toolCallReply } from '../fakes/openai_chat.js';

const fake = await startFakeChat();
t.teardown(() => fake.close());
t.beforeEach(() => { fake.requests.length = 0; fake.replies.length = 0; });
const dialog = new OpenAiChatDialog({ baseUrl: fake.baseUrl, apiKey: 'sk-test-fake', model: 'gpt-4o-mini' });
const request: DialogTurnRequest = {
  callId: 'c', agent: DEFAULT_AGENT, context: {}, tools: [], extracted: {}, now: '2026-11-25T09:00:00Z',
  history: [{ role: 'agent', text: DEFAULT_AGENT.disclosure_script }], callerText: 'Thank you for calling. For sales, press 1. For support, press 2.',
};
const collect = async (it: AsyncIterable<DialogEvent>) => { const out: DialogEvent[] = []; for await (const e of it) out.push(e); return out; };

t.test('press_keys is offered and becomes a keys event, with no follow-up request', async (t) => {
  fake.replies.push(toolCallReply([{ id: 'k1', name: 'press_keys', arguments: '{"digits":"1"}' }]));
  const events = await collect(dialog.turn(request));
  t.same(events.filter((e) => e.type === 'keys'), [{ type: 'keys', digits: '1' }]);
  t.equal(fake.requests.length, 1, 'the menu speaks next, not the model');
  const tool = fake.requests[0].body.tools.find((x: { function: { name: string } }) => x.function.name === 'press_keys');
  t.match(tool.function.parameters, { required: ['digits'], properties: { digits: { pattern: '^[0-9*#]{1,32}$' } } });
});

t.test('digits that are not keys go back to the model, and nothing is pressed', async (t) => {
  fake.replies.push(toolCallReply([{ id: 'k2', name: 'press_keys', arguments: '{"digits":"sales"}' }]), textReply(['Sorry, one moment.']));
  const events = await collect(dialog.turn(request));
  t.notOk(events.some((e) => e.type === 'keys'), 'no keys event');
  t.equal(fake.requests.length, 2, 'the model was asked again');
  t.match(JSON.stringify(fake.requests[1].body.messages.at(-1)), /digits must be 1-32 of 0-9/);
});
