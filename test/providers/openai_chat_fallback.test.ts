/**
 * DIALOG_PROVIDER=openai as the pipeline gets it from createAdapters: behind the deadline wrapper and the scripted
 * fallback. A model that fails or is too slow before its first word is replaced by the scripted engine for that
 * turn; one cut after it spoke ends with a spoken apology and an escalation; runTool reaches the model through
 * both wrappers. Never silence.
 */
import t from 'tap';
import { loadConfig } from '../../src/config.js';
import { createAdapters, type DialogEvent, type DialogTurnRequest, type ToolOutcome } from '../../src/adapters/index.js';
import { SPOKEN_FALLBACK_TEXT } from '../../src/dialog/fallback.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';
import { chunk, serverError, startFakeChat, textReply, toolCallReply } from '../fakes/openai_chat.js';

const fake = await startFakeChat();
t.teardown(() => fake.close());
t.beforeEach(() => { fake.requests.length = 0; fake.replies.length = 0; });
// deadline timers are unref'd: keep the process alive while a test waits on one
const alive = setInterval(() => {}, 1_000);
t.teardown(() => clearInterval(alive));

const fallbacks: string[] = [];
const adaptersWithDeadline = (ms: number) => {
  const a = createAdapters(loadConfig({
    DIALOG_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test-fake', OPENAI_BASE_URL: fake.baseUrl, ADAPTER_TIMEOUT_MS: String(ms),
  }), { overrides: { carrier: { placeCall: async () => ({ carrierCallId: 'x', outcome: 'failed' }), hangup: async () => {}, transfer: async () => {} } },
    warn: (m) => fallbacks.push(m) });
  t.teardown(() => a.close());
  return a;
};
// 10 s where the model must answer; 600 ms only where the slow side never answers in time
const adapters = adaptersWithDeadline(10_000);
const strict = adaptersWithDeadline(600);

const { role, language, disclosure_script, qualify_script } = DEFAULT_AGENT;
const request: DialogTurnRequest = {
  callId: 'call_test', agent: { role, language, disclosure_script, qualify_script }, context: {}, tools: ['calendar_booking'],
  history: [{ role: 'agent', text: disclosure_script }, { role: 'agent', text: 'May I have your name, please?' }],
  callerText: 'my name is Asha', extracted: {}, now: '2026-11-25T09:00:00Z',
};
async function collect(it: AsyncIterable<DialogEvent>): Promise<DialogEvent[]> {
  const out: DialogEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}
const textOf = (evs: DialogEvent[]) => evs.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text).join('');

t.test('the model answers when it can', async (t) => {
  t.equal(adapters.modes.dialog, 'live');
  fake.replies.push(textReply(['Lovely to meet you, Asha. What are you looking for?']));
  t.equal(textOf(await collect(adapters.dialog.turn(request))), 'Lovely to meet you, Asha. What are you looking for?');
});

t.test('5xx on every retry: the scripted engine answers the turn', async (t) => {
  const quick = { 'retry-after-ms': '10' };
  fake.replies.push(serverError(500, quick), serverError(502, quick), serverError(503, quick));
  const evs = await collect(adapters.dialog.turn(request));
  t.match(textOf(evs), /What are you looking for today\?/, 'the scripted next question');
  t.match(evs.find((e) => e.type === 'entity'), { key: 'customer_name', value: 'Asha' });
  t.match(fallbacks.at(-1), /unavailable \(before_reply\)/);
});

t.test('a first token slower than the deadline: the scripted engine answers, the model stream is dropped', async (t) => {
  // the first token only after 60 s, in short waits so the fake stops soon after the client goes away
  const slow = textReply(['Too late.']);
  if (slow.kind === 'stream') slow.events.splice(1, 0, ...Array.from({ length: 600 }, () => ({ waitMs: 100 })));
  fake.replies.push(slow);
  const evs = await collect(strict.dialog.turn(request));
  t.notOk(fake.requests[0].completed, 'answered before the model\'s first token');
  t.notOk(textOf(evs).includes('Too late.'), 'nothing of the model\'s reply');
  t.match(textOf(evs), /What are you looking for today\?/);
  t.match(fallbacks.at(-1), /timeout \(before_reply\)/);
  for (const until = Date.now() + 5_000; !fake.requests[0].aborted && Date.now() < until;) await new Promise((r) => setTimeout(r, 20));
  t.ok(fake.requests[0].aborted, 'the slow request was closed');
});

t.test('a stream cut after the first sentence: an apology and a hand-off, not the half sentence', async (t) => {
  fake.replies.push({ kind: 'stream', events: [chunk({ content: 'Thanks, Asha. Our villas' })], cut: true });
  const evs = await collect(adapters.dialog.turn(request));
  t.same(evs.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text), ['Thanks, Asha. ', SPOKEN_FALLBACK_TEXT]);
  t.same(evs.at(-1), { type: 'escalate', reason: 'dialog_failed' });
  t.equal(fake.requests.length, 1, 'not retried once text flowed');
});

t.test('runTool reaches the model through the deadline and fallback wrappers', async (t) => {
  fake.replies.push(toolCallReply([{ id: 'c1', name: 'calendar_booking', arguments: '{"start":"2026-11-26T10:00:00+05:30"}' }]), textReply(['Booked.']));
  const ran: string[] = [];
  const runTool = async (tool: string): Promise<ToolOutcome> => { ran.push(tool); return { type: 'calendar.event.create', status: '201_created' }; };
  const evs = await collect(adapters.dialog.turn(request, { runTool }));
  t.same(ran, ['calendar_booking']);
  t.equal(textOf(evs.filter((e) => e.type !== 'text' || (e as { text: string }).text)), 'Booked.');
  t.notOk(evs.some((e) => e.type === 'tool_call'));
});

t.test('a failure after a tool ran is apologised for, not replayed by the scripted engine', async (t) => {
  fake.replies.push(toolCallReply([{ id: 'c1', name: 'calendar_booking', arguments: '{"start":"2026-11-26T10:00:00+05:30"}' }]),
    ...[500, 502, 503].map((s) => serverError(s, { 'retry-after-ms': '10' })));
  const ran: string[] = [];
  const runTool = async (tool: string): Promise<ToolOutcome> => { ran.push(tool); return { type: 'calendar.event.create', status: '201_created' }; };
  const evs = await collect(adapters.dialog.turn({ ...request, callerText: 'tomorrow at 10 am' }, { runTool }));
  t.same(ran, ['calendar_booking'], 'booked once');
  t.notOk(evs.some((e) => e.type === 'tool_call'), 'the scripted engine did not book again');
  t.match(textOf(evs), SPOKEN_FALLBACK_TEXT);
  t.same(evs.at(-1), { type: 'escalate', reason: 'dialog_failed' });
});

t.test('a tool slower than the deadline: the model hears it is pending and speaks on; the call still gets its outcome', async (t) => {
  fake.replies.push(toolCallReply([{ id: 'c1', name: 'calendar_booking', arguments: '{"start":"2026-11-26T10:00:00+05:30"}' }]),
    textReply(['I have asked for the booking; you will get a confirmation.']));
  // the tool answers only once the model was asked again, i.e. never in time (the wait for it is 0.8 x 10 s)
  let asked!: () => void;
  const askedAgain = new Promise<void>((r) => { asked = r; });
  fake.responder = (_body, n) => { if (n === 2) asked(); return undefined; };
  t.teardown(() => { fake.responder = undefined; });
  const recorded: string[] = [];
  const runTool = async (): Promise<ToolOutcome> => {
    await askedAgain;
    recorded.push('201_created');
    return { type: 'calendar.event.create', status: '201_created' };
  };
  const evs = await collect(adapters.dialog.turn(request, { runTool }));
  t.equal(textOf(evs), 'I have asked for the booking; you will get a confirmation.', 'no apology, no hand-off');
  t.notOk(evs.some((e) => e.type === 'escalate'));
  t.match(JSON.parse(fake.requests[1].body.messages.at(-1).content), { status: 'pending' });
  for (const until = Date.now() + 5_000; !recorded.length && Date.now() < until;) await new Promise((r) => setTimeout(r, 20));
  t.same(recorded, ['201_created'], 'the run went on and was recorded');
});
