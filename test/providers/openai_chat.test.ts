/**
 * The Chat Completions dialog against the local fake: text streamed as it comes, the request a local server
 * accepts, the prompt, tool calls assembled from fragments and run through runTool with their results sent back,
 * the built-in tools, the provider's retry rules, a stream cut or aborted mid-sentence, malformed chunks.
 */
import t from 'tap';
import { AdapterError, type DialogEvent, type DialogTurnOptions, type DialogTurnRequest, type ToolOutcome } from '../../src/adapters/types.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';
import { OpenAiChatDialog } from '../../src/providers/openai_chat/dialog.js';
import { rateLimited, serverError, startFakeChat, textReply, toolCallReply, chunk } from '../fakes/openai_chat.js';

const fake = await startFakeChat();
t.teardown(() => fake.close());
t.beforeEach(() => { fake.requests.length = 0; fake.replies.length = 0; fake.responder = undefined; });

const dialog = (o: Partial<ConstructorParameters<typeof OpenAiChatDialog>[0]> = {}) =>
  new OpenAiChatDialog({ baseUrl: fake.baseUrl, apiKey: 'sk-test-fake', model: 'gpt-4o-mini', ...o });

const { role, language, disclosure_script, qualify_script } = DEFAULT_AGENT;
const request = (o: Partial<DialogTurnRequest> = {}): DialogTurnRequest => ({
  callId: 'call_test', agent: { role, language, disclosure_script, qualify_script }, context: { project_name: 'Palm Grove', time_zone: 'Asia/Kolkata' },
  tools: ['calendar_booking', 'crm_sync'], history: [{ role: 'agent', text: disclosure_script }, { role: 'agent', text: 'May I have your name, please?' }],
  callerText: 'I am Asha', extracted: {}, now: '2026-11-25T09:00:00Z', ...o,
});

async function collect(it: AsyncIterable<DialogEvent>): Promise<DialogEvent[]> {
  const out: DialogEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}
const textOf = (evs: DialogEvent[]) => evs.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text).join('');
async function codeOf(p: Promise<unknown>): Promise<string> {
  try { await p; return 'resolved'; } catch (err) { return err instanceof AdapterError ? err.code : `not an AdapterError: ${String(err)}`; }
}

t.test('text streams out sentence by sentence while the model still writes', async (t) => {
  fake.replies.push(textReply(['Thank you', ', Asha. What are', ' you looking for', ' today?'], { gapMs: 150 }));
  const t0 = Date.now();
  const seen: Array<{ text: string; at: number }> = [];
  for await (const e of dialog().turn(request())) if (e.type === 'text') seen.push({ text: e.text, at: Date.now() - t0 });
  t.same(seen.map((s) => s.text), ['Thank you, Asha. ', 'What are you looking for today?']);
  t.ok(seen[1].at - seen[0].at >= 250, `the first sentence came ${seen[1].at - seen[0].at} ms before the end`);
  const body = fake.requests[0].body;
  t.equal(fake.requests[0].headers.authorization, 'Bearer sk-test-fake');
  t.same(Object.keys(body).sort(), ['messages', 'model', 'stream', 'tools'], 'only what every compatible server accepts');
  t.equal(body.model, 'gpt-4o-mini');
  t.same(body.tools.map((x: any) => x.function.name), ['calendar_booking', 'crm_sync', 'record_fields', 'transfer_to_human', 'end_call', 'press_keys'],
    'the enabled integrations, then the built-ins');
  t.equal(body.tools[0].function.parameters.required[0], 'start');
});

t.test('prompt: role, disclosure, script, context, language, known fields, history, the caller last', async (t) => {
  fake.replies.push(textReply(['Noted.']));
  await collect(dialog().turn(request({
    agent: { role: 'villa sales', language: 'hi-IN', disclosure_script: 'Namaste, I am an AI assistant for {project_name}.', qualify_script,
      qualify_text: 'Be warm. Ask their name? Then their budget?' },
    history: [{ role: 'agent', text: 'Namaste, I am an AI assistant for Palm Grove.' }, { role: 'agent', text: 'May I have your name, please?' },
      { role: 'caller', text: 'Asha here' }, { role: 'agent', text: 'What budget do you have in mind?' }, { role: 'caller', text: 'about eighty' },
      { role: 'caller', text: 'lakh' }],
    callerText: 'about eighty lakh', extracted: { customer_name: 'Asha' },
  })));
  const [system, ...rest] = fake.requests[0].body.messages;
  t.equal(system.role, 'system');
  for (const want of ['villa sales', 'Speak Hindi (India) (hi-IN) only', 'Namaste, I am an AI assistant for Palm Grove.', 'Be warm. Ask their name?',
    '[budget] What budget do you have in mind?', 'customer_name = Asha', 'project_name = Palm Grove', 'Wednesday 2026-11-25T14:30:00+05:30', 'Asia/Kolkata']) {
    t.ok(system.content.includes(want), `system prompt has ${want}`);
  }
  t.same(rest.map((m: any) => m.role), ['user', 'assistant', 'user', 'assistant', 'user'], 'roles alternate, starting with the caller');
  t.equal(rest.at(-1).content, 'about eighty lakh', 'the caller\'s words once, not again from the history');
  t.match(rest[1].content, /Palm Grove\.\nMay I have your name/, 'one speaker\'s lines merged');
});

t.test('the opening turn and a silent caller get a stage note so the last message is the caller\'s', async (t) => {
  fake.replies.push(textReply(['Hello.']), textReply(['Are you there?']));
  await collect(dialog().turn(request({ history: [{ role: 'agent', text: disclosure_script }], callerText: '' })));
  await collect(dialog().turn(request({ callerText: '' })));
  t.match(fake.requests[0].body.messages.at(-1), { role: 'user', content: /picked up/ });
  t.match(fake.requests[1].body.messages.at(-1), { role: 'user', content: /silent/ });
});

t.test('tool round trip: fragments assembled, run through runTool, result sent back, the model answers', async (t) => {
  fake.replies.push(
    toolCallReply([
      { id: 'call_rec', name: 'record_fields', arguments: '{"customer_name":"Asha","scheduled_slot":"2026-11-26T10:00:00+05:30"}' },
      { id: 'call_cal', name: 'calendar_booking', arguments: '{"start":"2026-11-26T10:00:00+05:30","title":"Site visit"}' },
    ], { text: ['Let me book ', 'that. '], pieces: 4 }),
    textReply(['You are booked for tomorrow at ten.']),
  );
  const ran: Array<[string, Record<string, string>]> = [];
  const runTool = async (tool: string, args: Record<string, string>): Promise<ToolOutcome> => {
    ran.push([tool, args]);
    return { type: 'calendar.event.create', status: '201_created', result: { booking_uid: 'bk_42' } };
  };
  const evs = await collect(dialog().turn(request({ callerText: 'tomorrow at 10 am works' }), { runTool }));
  t.same(evs.filter((e) => e.type === 'entity'), [
    { type: 'entity', key: 'customer_name', value: 'Asha' }, { type: 'entity', key: 'scheduled_slot', value: '2026-11-26T10:00:00+05:30' }]);
  t.equal(textOf(evs), 'Let me book that. You are booked for tomorrow at ten.');
  t.same(ran, [['calendar_booking', { title: 'Site visit', time_zone: 'Asia/Kolkata', customer_name: 'Asha', start: '2026-11-26T10:00:00+05:30' }]]);
  t.notOk(evs.some((e) => e.type === 'tool_call'), 'a tool run through runTool is not announced again');
  const follow = fake.requests[1].body.messages;
  const assistant = follow.find((m: any) => m.role === 'assistant' && m.tool_calls);
  t.same(assistant.tool_calls.map((c: any) => [c.id, c.function.name]), [['call_rec', 'record_fields'], ['call_cal', 'calendar_booking']]);
  t.equal(assistant.content, 'Let me book that. ');
  const results = follow.filter((m: any) => m.role === 'tool');
  t.same(results.map((m: any) => m.tool_call_id), ['call_rec', 'call_cal']);
  t.same(JSON.parse(results[1].content), { status: '201_created', result: { booking_uid: 'bk_42' } }, 'the real outcome goes back to the model');
});

t.test('a booked slot the model did not record is recorded; without runTool the tool is announced', async (t) => {
  fake.replies.push(toolCallReply([{ id: 'c1', name: 'calendar_booking', arguments: '{"start":"2026-11-26T10:00:00+05:30"}' }]), textReply(['Booked.']));
  const runTool = async (): Promise<ToolOutcome> => ({ type: 'calendar.event.create', status: '201_created' });
  const evs = await collect(dialog().turn(request(), { runTool }));
  t.same(evs.filter((e) => e.type === 'entity'), [{ type: 'entity', key: 'scheduled_slot', value: '2026-11-26T10:00:00+05:30' }]);
  fake.replies.push(toolCallReply([{ id: 'c1', name: 'calendar_booking', arguments: '{"start":"2026-11-26T10:00:00+05:30"}' }]), textReply(['Booked.']));
  const announced = await collect(dialog().turn(request()));
  t.match(announced.find((e) => e.type === 'tool_call'), { tool: 'calendar_booking', arguments: { start: '2026-11-26T10:00:00+05:30' } });
  t.same(JSON.parse(fake.requests[3].body.messages.at(-1).content), { status: 'queued' });
});

t.test('record_fields: budget normalised, a slot without offset and an unknown field refused back to the model', async (t) => {
  fake.replies.push(
    toolCallReply([{ id: 'r1', name: 'record_fields', arguments: JSON.stringify({ budget: '80 lakh rupees', scheduled_slot: '2026-11-26T10:00', favourite: 'x', qualification_score: '70', intent: 'villa '.repeat(50) }) }],
      { text: ['Got it. '] }),
    toolCallReply([{ id: 'r2', name: 'record_fields', arguments: '{"scheduled_slot":"2026-11-26T10:00:00+05:30"}' }]),
  );
  const evs = await collect(dialog().turn(request()));
  t.same(evs.filter((e) => e.type === 'entity'), [
    { type: 'entity', key: 'budget', value: '8000000 INR' }, { type: 'entity', key: 'qualification_score', value: 70 },
    { type: 'entity', key: 'scheduled_slot', value: '2026-11-26T10:00:00+05:30' }]);
  const refusal = JSON.parse(fake.requests[1].body.messages.at(-1).content);
  t.match(refusal, { recorded: { budget: '8000000 INR', qualification_score: 70 }, refused: { scheduled_slot: /UTC offset/, favourite: /not a field/, intent: /at most 200/ } });
  t.equal(fake.requests.length, 2, 'a refusal is answered; a clean record once the turn has spoken is not (no repeated words)');
  t.equal(textOf(evs), 'Got it. ');
});

t.test('end_call: the goodbye, the score, the CRM update with the extracted fields, then the ending last', async (t) => {
  fake.replies.push(toolCallReply([{ id: 'e1', name: 'end_call', arguments: '{"reason":"completed"}' }], { text: ['Thank you, Asha. Goodbye.'] }));
  const ran: Array<[string, Record<string, string>]> = [];
  const runTool = async (tool: string, args: Record<string, string>): Promise<ToolOutcome> => { ran.push([tool, args]); return { type: 'crm.lead.update', status: '200_ok' }; };
  const evs = await collect(dialog().turn(request({ extracted: { customer_name: 'Asha', intent: 'villa' } }), { runTool }));
  t.equal(fake.requests.length, 1, 'nothing left to answer after a goodbye');
  t.same(evs.at(-1), { type: 'end_call', reason: 'completed' });
  t.match(evs.find((e) => e.type === 'entity'), { key: 'qualification_score', value: 40 });
  t.same(ran, [['crm_sync', { outcome: 'completed', customer_name: 'Asha', intent: 'villa', qualification_score: '40' }]]);
});

t.test('transfer_to_human without a word first: the model is asked again and speaks, then escalate', async (t) => {
  fake.replies.push(toolCallReply([{ id: 'h1', name: 'transfer_to_human', arguments: '{"reason":"caller_requested_human"}' }]),
    textReply(['Of course, connecting you now.']));
  const evs = await collect(dialog().turn(request({ tools: [], callerText: 'can I talk to a person' })));
  t.equal(textOf(evs), 'Of course, connecting you now.');
  t.same(evs.at(-1), { type: 'escalate', reason: 'caller_requested_human' });
});

t.test('tool rounds are bounded', async (t) => {
  fake.responder = () => toolCallReply([{ id: 'x', name: 'record_fields', arguments: '{"budget":"bad' }]);
  t.equal(await codeOf(collect(dialog({ maxRequests: 3 }).turn(request()))), 'failed', 'no text at all: the fallback speaks');
  t.equal(fake.requests.length, 3);
});

t.test('retries before the first token: 429 with retry-after-ms, then 500, then the answer', async (t) => {
  fake.replies.push(rateLimited({ 'retry-after-ms': '120' }), serverError(503), textReply(['Hello again.']));
  const t0 = Date.now();
  const evs = await collect(dialog().turn(request()));
  t.equal(textOf(evs), 'Hello again.');
  t.equal(fake.requests.length, 3);
  t.ok(Date.now() - t0 >= 120, 'waited as asked');
});

t.test('retries are bounded, and a wait longer than a caller can bear is not made', async (t) => {
  fake.replies.push(serverError(), serverError(), serverError());
  t.equal(await codeOf(collect(dialog().turn(request()))), 'unavailable');
  t.equal(fake.requests.length, 3, 'the first try and two retries');
  fake.requests.length = 0;
  fake.replies.push(rateLimited({ 'retry-after': '30' }));
  const t0 = Date.now();
  t.equal(await codeOf(collect(dialog().turn(request()))), 'unavailable');
  t.equal(fake.requests.length, 1);
  t.ok(Date.now() - t0 < 1000, 'failed at once, for the fallback to answer');
  fake.requests.length = 0;
  fake.replies.push({ kind: 'error', status: 401, body: { error: { message: 'Incorrect API key provided: sk-abc12***********xyz9.' } } });
  const err = await collect(dialog().turn(request())).catch((e: unknown) => e);
  t.match(err, { code: 'failed', message: /401: Incorrect API key provided: \[redacted\]/ }, 'a 401 is not retried');
  t.notMatch(String((err as Error).message), /abc12|xyz9/, 'no part of the key in the error');
  t.equal(fake.requests.length, 1);
});

t.test('a connection dropped before the first token is retried; a stream cut mid-sentence is not', async (t) => {
  fake.replies.push({ kind: 'stream', events: [chunk({ role: 'assistant', content: '' })], cut: true }, textReply(['Back again.']));
  t.equal(textOf(await collect(dialog().turn(request()))), 'Back again.');
  t.equal(fake.requests.length, 2);
  fake.requests.length = 0;
  fake.replies.push({ kind: 'stream', events: [chunk({ content: 'Our villas start at' }), chunk({ content: ' one crore. The sea-facing ones' })], cut: true });
  const seen: DialogEvent[] = [];
  const code = await codeOf((async () => { for await (const e of dialog().turn(request())) seen.push(e); })());
  t.equal(code, 'failed');
  t.equal(fake.requests.length, 1, 'text had flowed: no retry');
  t.equal(textOf(seen), 'Our villas start at one crore. ', 'the half sentence is never passed on');
});

t.test('malformed chunks are skipped; a stream of nothing but garbage fails', async (t) => {
  fake.replies.push({ kind: 'stream', events: [chunk({ content: 'Hello ' }), { raw: 'data: {"choices":[{"delta":\n\n' }, { raw: 'data: not json\n\n' },
    { data: { choices: [{ delta: { content: 'Asha.' } }] } }, chunk({}, 'stop'), { raw: 'data: [DONE]\n\n' }] });
  t.equal(textOf(await collect(dialog().turn(request()))), 'Hello Asha.', 'a chunk missing id, model and finish_reason is still read');
  fake.replies.push({ kind: 'stream', events: [{ raw: 'data: {oops\n\n' }] }, { kind: 'stream', events: [{ raw: 'data: {oops\n\n' }] }, { kind: 'stream', events: [{ raw: 'data: {oops\n\n' }] });
  t.equal(await codeOf(collect(dialog().turn(request()))), 'unavailable', 'a stream that ends unfinished and said nothing');
});

t.test('an error object inside the stream ends the turn', async (t) => {
  fake.replies.push({ kind: 'stream', events: [{ data: { error: { message: 'context length exceeded', type: 'invalid_request_error' } } }] });
  t.equal(await codeOf(collect(dialog().turn(request()))), 'failed');
});

t.test('abort mid-stream (barge-in): the HTTP stream is closed and nothing more is emitted', async (t) => {
  fake.replies.push(textReply(['First sentence here. ', 'Second ', 'sentence ', 'that ', 'never ', 'ends.'], { gapMs: 100 }));
  const ctl = new AbortController();
  const seen: DialogEvent[] = [];
  const opts: DialogTurnOptions = { signal: ctl.signal };
  const code = await codeOf((async () => {
    for await (const e of dialog().turn(request(), opts)) { seen.push(e); ctl.abort(); }
  })());
  t.equal(code, 'canceled');
  t.same(seen, [{ type: 'text', text: 'First sentence here. ' }]);
  for (let i = 0; i < 50 && !fake.requests[0].aborted; i++) await new Promise((r) => setTimeout(r, 20));
  t.ok(fake.requests[0].aborted, 'the server saw the client go away');
  t.notOk(fake.requests[0].completed);
});

t.test('a server that ignores stream:true: its whole completion is read, tool calls included', async (t) => {
  fake.replies.push({ kind: 'whole', finishReason: 'tool_calls', message: { content: null,
    tool_calls: [{ id: 'w1', type: 'function', function: { name: 'record_fields', arguments: '{"intent":"a villa"}' } }] } },
  { kind: 'whole', finishReason: 'stop', message: { content: 'A villa. What budget do you have in mind?' } });
  const evs = await collect(dialog().turn(request()));
  t.same(evs.filter((e) => e.type === 'entity'), [{ type: 'entity', key: 'intent', value: 'a villa' }]);
  t.equal(textOf(evs), 'A villa. What budget do you have in mind?');
});

t.test('an abort during a retry wait ends the turn at once as canceled', async (t) => {
  fake.replies.push(rateLimited({ 'retry-after-ms': '1500' }));
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(), 100);
  const t0 = Date.now();
  t.equal(await codeOf(collect(dialog().turn(request(), { signal: ctl.signal }))), 'canceled');
  t.ok(Date.now() - t0 < 1000, 'did not sit out the wait');
  t.equal(fake.requests.length, 1);
});
