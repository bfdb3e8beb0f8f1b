/**
 * Issue 33, a demo conversation's summary: when the agent ends it (the scripted engine here, so built from the
 * fields), GET /v1/conversations/<id> carries `summary` and `summary_source`; null while it runs. A conversation an
 * operator closed from the handoff queue gets the fields' summary too. (The model's summary: test/providers/
 * openai_chat_summary.test.ts.)
 */
import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const b = srv.baseUrl;
const token = await login(b);

const say = (id: string, text: string, tok?: string) => api(b, 'POST', `/conversations/${id}/turns`, { token: tok, body: { text } });

t.test('the agent ends the conversation: its summary is written from the fields', async (t) => {
  const c = await api(b, 'POST', '/conversations', { body: { domain: 'Lakeview' } });
  for (const line of ['Hello', 'My name is Anna', 'a villa', '50 lakh']) t.equal((await say(c.body.id, line)).status, 200, line);
  const running = await api(b, 'GET', `/conversations/${c.body.id}`);
  t.same([running.body.summary, running.body.summary_source], [null, null], 'none while it runs');
  await say(c.body.id, 'tomorrow at 10 am');
  const bye = await say(c.body.id, 'No, that is all, bye');
  t.equal(bye.body.agent.ended, 'completed', JSON.stringify(bye.body.agent));
  const ended = await api(b, 'GET', `/conversations/${c.body.id}`);
  t.equal(ended.body.state, 'closed');
  t.equal(ended.body.summary_source, 'fields');
  t.match(ended.body.summary, /^Anna is looking for a villa, with a budget of 5000000 INR\. Next step: site visit at 2026-\d\d-\d\dT10:00:00.* \(preferred time; to be confirmed by the team\)\./,
    'the demo books nothing: the time is a preference, never "booked"');
});

t.test('an opt-out in the demo: the summary says so', async (t) => {
  const c = await api(b, 'POST', '/conversations', { body: {} });
  await say(c.body.id, 'Hello');
  const stop = await say(c.body.id, 'Stop calling me');
  t.equal(stop.body.agent.ended, 'opted_out');
  const v = await api(b, 'GET', `/conversations/${c.body.id}`);
  t.match(v.body.summary, /Asked not to be called again/);
});

t.test('a conversation an operator closed gets the fields\' summary when read', async (t) => {
  const c = await api(b, 'POST', '/conversations', { token, body: {} });
  await say(c.body.id, 'Hi, I am Ravi', token);
  const human = await say(c.body.id, 'Can I talk to a real person please', token);
  t.equal(human.body.state, 'handoff');
  t.equal((await api(b, 'POST', `/handoffs/${c.body.id}/accept`, { token })).status, 200);
  t.equal((await api(b, 'POST', `/handoffs/${c.body.id}/resolve`, { token, body: { then: 'close' } })).status, 200);
  const v = await api(b, 'GET', `/conversations/${c.body.id}`, { token });
  t.equal(v.body.state, 'closed');
  t.equal(v.body.summary_source, 'fields');
  t.match(v.body.summary, /^Ravi did not say what they are looking for\. Next step: a colleague follows up/);
  const again = await api(b, 'GET', `/conversations/${c.body.id}`, { token });
  t.equal(again.body.summary, v.body.summary, 'written once, read the same');
});
