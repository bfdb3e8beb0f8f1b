/**
 * Issue 33, the post-call summary written by the model-backed dialog: after a call (and after a demo conversation
 * the agent ended) one Chat Completions request, without tools, carries the transcript and the fields; its text is
 * the stored summary (summary_source "model") on GET /v1/calls/<id>, in call.completed and on GET of the
 * conversation. A model that fails, answers too late (SUMMARY_TIMEOUT_MS) or writes nothing leaves the summary
 * built from the fields (summary_source "fields"). Against the Chat Completions fake.
 */
import t, { type Test } from 'tap';
import { API_KEY, api, startTestServer, waitForCallEnd } from '../helpers/server.js';
import { startFakeChat, textReply, toolCallReply, serverError, type FakeReply } from '../fakes/openai_chat.js';
import { webhookReceiver } from '../helpers/webhook_receiver.js';
import { summaryMessages, tidySummary, SUMMARY_MAX_CHARS } from '../../src/providers/openai_chat/summary_prompt.js';
import { writeSummary } from '../../src/dialog/summary.js';
import { AdapterError } from '../../src/adapters/types.js';

// six simulated calls and two conversations: more than the suite's per-file limit on a busy machine
t.setTimeout(300_000);
const SUMMARY_TIMEOUT_MS = 800;
const fake = await startFakeChat();
t.teardown(() => fake.close());
const srv = await startTestServer({ env: {
  DIALOG_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test-fake', OPENAI_BASE_URL: fake.baseUrl, SIM_TIME_SCALE: '10',
  SUMMARY_TIMEOUT_MS: String(SUMMARY_TIMEOUT_MS), WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_POLL_MS: '50',
} });
t.teardown(() => srv.close());
const { received, url: hookUrl } = await webhookReceiver(t);
const auth = { headers: { 'x-api-key': API_KEY } };

const MODEL_SUMMARY = 'Asha wants a villa; her budget was not given. Next step: the team follows up.';
/** a turn request always offers tools (record_fields and the rest); the summary request offers none */
const isSummary = (body: any) => !body.tools;
let summaryReply: FakeReply = textReply([MODEL_SUMMARY.slice(0, 20), MODEL_SUMMARY.slice(20)]);

/** A model that asks the caller's name, then on the next answer records it and ends the call; the summary request gets summaryReply. */
fake.responder = (body) => {
  if (isSummary(body)) return summaryReply;
  const asked = body.messages.some((m: any) => m.role === 'assistant' && /your name/.test(m.content ?? ''));
  if (!asked) return textReply(['May I have your name, please?']);
  return toolCallReply([
    { id: 'r1', name: 'record_fields', arguments: '{"customer_name":"Asha","intent":"a villa"}' },
    { id: 'e1', name: 'end_call', arguments: '{"reason":"completed"}' },
  ], { text: ['Thank you, Asha. Goodbye.'] });
};
t.beforeEach(() => { fake.requests.length = 0; summaryReply = textReply([MODEL_SUMMARY.slice(0, 20), MODEL_SUMMARY.slice(20)]); });

async function callEnded(t: Test) {
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+14155550123', agent_id: 'default', webhook_url: hookUrl,
    context: { project_name: 'Palm Grove' } } });
  t.equal(d.status, 201, JSON.stringify(d.body));
  const call = await waitForCallEnd(srv.baseUrl, d.body.id, auth.headers);
  return call;
}

t.test('a call: the model writes the summary from the transcript and the fields', async (t) => {
  const call = await callEnded(t);
  t.equal(call.ended_reason, 'completed');
  t.equal(call.summary, MODEL_SUMMARY, 'the model\'s text, streamed pieces joined');
  t.equal(call.summary_source, 'model');
  const asked = fake.requests.filter((r) => isSummary(r.body));
  t.equal(asked.length, 1, 'one summary request per call');
  const [system, user] = asked[0].body.messages;
  t.equal(asked[0].body.stream, true);
  t.match(system.content, /who the caller is, what they want, their budget, the next step, and any questions left open/);
  t.match(user.content, /How it ended: completed\./);
  t.match(user.content, /Extracted fields: customer_name = Asha; intent = a villa/);
  t.match(user.content, /Call context: .*project_name = Palm Grove/);
  t.match(user.content, /The fields' summary: Asha is looking for a villa\. Budget not given\./);
  t.match(user.content, /\nCaller: .+/, 'the transcript holds what the caller said');
  t.match(user.content, /\nAgent: May I have your name, please\?/);
  for (let i = 0; i < 100 && !received.some((r) => r.body.includes(call.id)); i++) await new Promise((r) => setTimeout(r, 50));
  const hook = JSON.parse(received.find((r) => r.body.includes(call.id))!.body);
  t.equal(hook.summary, MODEL_SUMMARY, 'call.completed carries it');
  t.equal(hook.summary_source, 'model');
});

t.test('a call whose summary request fails, is too slow or empty keeps the fields\' summary', async (t) => {
  const cases: Array<[string, FakeReply]> = [
    ['a 400 (not retried)', { kind: 'error', status: 400, body: { error: { message: 'bad request', type: 'invalid_request_error' } } }],
    ['server errors past the retries', serverError(500, { 'retry-after-ms': '1' })],
    ['first token after SUMMARY_TIMEOUT_MS', textReply(['Too late.'], { firstTokenMs: SUMMARY_TIMEOUT_MS * 3 })],
    ['an empty completion', textReply([''])],
  ];
  for (const [what, reply] of cases) {
    summaryReply = reply;
    const call = await callEnded(t);
    t.equal(call.summary_source, 'fields', what);
    t.match(call.summary, /^Asha is looking for a villa\. Budget not given\. Next step: the team follows up\.$/, what);
  }
});

t.test('a demo conversation the model ended gets its summary; before the end there is none', async (t) => {
  const c = await api(srv.baseUrl, 'POST', '/conversations', { body: { domain: 'Palm Grove' } });
  const first = await api(srv.baseUrl, 'POST', `/conversations/${c.body.id}/turns`, { body: { text: 'Hello?' } });
  t.equal(first.status, 200);
  const running = await api(srv.baseUrl, 'GET', `/conversations/${c.body.id}`);
  t.same([running.body.summary, running.body.summary_source], [null, null], 'no summary while it runs');
  t.equal(fake.requests.filter((r) => isSummary(r.body)).length, 0);
  const last = await api(srv.baseUrl, 'POST', `/conversations/${c.body.id}/turns`, { body: { text: 'I am Asha and I want a villa. Bye.' } });
  t.equal(last.body.agent.ended, 'completed');
  const ended = await api(srv.baseUrl, 'GET', `/conversations/${c.body.id}`);
  t.equal(ended.body.state, 'closed');
  t.equal(ended.body.summary, MODEL_SUMMARY);
  t.equal(ended.body.summary_source, 'model');
  const user = fake.requests.find((r) => isSummary(r.body))!.body.messages[1].content;
  t.match(user, /Caller: I am Asha and I want a villa\. Bye\./);

  summaryReply = serverError(400);
  const c2 = await api(srv.baseUrl, 'POST', '/conversations', { body: {} });
  await api(srv.baseUrl, 'POST', `/conversations/${c2.body.id}/turns`, { body: { text: 'Hello?' } });
  await api(srv.baseUrl, 'POST', `/conversations/${c2.body.id}/turns`, { body: { text: 'Asha, a villa, bye' } });
  const fallback = await api(srv.baseUrl, 'GET', `/conversations/${c2.body.id}`);
  t.equal(fallback.body.summary_source, 'fields');
  t.match(fallback.body.summary, /^Asha is looking for a villa\./);
});

t.test('the request and the stored text: bounded transcript, one plain paragraph', async (t) => {
  const history = Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? 'agent' as const : 'caller' as const, text: `line ${i}` }));
  const [, user] = summaryMessages({ agent: { role: 'sales', language: 'en' }, context: { human_handoff: 'unavailable' }, history,
    extracted: {}, endedReason: null, fromFields: 'The caller did not say what they are looking for.' });
  t.match(user.content, /Call context: none\./, 'the internal handoff flag is not the model\'s business');
  t.notMatch(user.content, /line 119\n/, 'the oldest lines are left out');
  t.match(user.content, /Agent: line 199$/, 'the end of the call is kept');
  t.equal(tidySummary('**Asha** wants\n\na villa.'), 'Asha wants a villa.');
  const long = tidySummary('A sentence that goes on. '.repeat(100));
  t.ok(long.length <= SUMMARY_MAX_CHARS && long.endsWith('on.'), 'cut at a sentence end');
});

t.test('writeSummary: the scripted engine (no summarize) and a model that hangs', async (t) => {
  const input = { extracted: { customer_name: 'Anna' }, endedReason: 'completed', booked: false, humanEscalation: false,
    agent: { role: 'sales', language: 'en' }, context: {}, history: [] };
  t.same(await writeSummary({}, input), { summary: 'Anna did not say what they are looking for. Next step: the team follows up.', source: 'fields' });
  const errors: unknown[] = [];
  const hung = await writeSummary({ summarize: () => new Promise<string>(() => {}) }, input, { timeoutMs: 50, onError: (e) => errors.push(e) });
  t.equal(hung.source, 'fields');
  t.match(errors, [{ code: 'timeout' }], 'the deadline is enforced even on a model that ignores its signal');
  t.ok(errors[0] instanceof AdapterError);
});
