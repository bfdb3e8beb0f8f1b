/**
 * Issue 33, the conversation state stays true: the demo said "Goodbye" with ended: completed while the conversation
 * stayed active and kept answering; and a first turn of audio the agent did not understand looped on "Sorry, I
 * didn't catch that" without ever giving the AI disclosure. An ended conversation answers 409 with a clear problem,
 * and the disclosure comes first, always.
 */
import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';
import { writeWav } from '../../src/audio/index.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';

const srv = await startTestServer({ env: { DEMO_TENANT_REQUESTS_PER_MINUTE: '1000' } });
t.teardown(() => srv.close());
const b = srv.baseUrl;
const token = await login(b);

t.test('the agent ends it: the conversation is closed and the next turn is a 409 that says why', async (t) => {
  const conv = (await api(b, 'POST', '/conversations', { token, body: {} })).body.id as string;
  const turn = (text: string) => api(b, 'POST', `/conversations/${conv}/turns`, { token, body: { text } });
  const bye = await turn('Please stop calling me.');
  t.equal(bye.status, 200);
  t.match(bye.body, { agent: { ended: 'opted_out' }, state: 'closed' });
  const after = await turn('Hello? Can you send me the brochure?');
  t.equal(after.status, 409);
  t.match(after.headers.get('content-type'), /application\/problem\+json/);
  t.match(after.body, { code: 'conflict', state: 'closed', ended_reason: 'opted_out', detail: /has ended \(opted_out\); start a new conversation/ });
  const view = await api(b, 'GET', `/conversations/${conv}`, { token });
  t.equal(view.body.state, 'closed');
});

t.test('after the last question the demo answers more, then ends on the goodbye', async (t) => {
  const conv = (await api(b, 'POST', '/conversations', { token, body: {} })).body.id as string;
  const turn = (text: string) => api(b, 'POST', `/conversations/${conv}/turns`, { token, body: { text } });
  await turn("Hi, I'm Priya Sharma, looking for a 3BHK flat with a budget of one crore");
  const slot = await turn('next Friday at four p m');
  t.match(slot.body.agent.text, /noted .* as your preferred time.*anything else/, 'no calendar in the demo: nothing claimed');
  t.notMatch(slot.body.agent.text, /have you down|booked/);
  t.equal(slot.body.state, 'active');
  const q = await turn('Is there parking?');
  t.match(q.body.agent.text, /team will follow up.*anything else/);
  const bye = await turn('No, that is all. Bye.');
  t.match(bye.body, { agent: { ended: 'completed' }, state: 'closed' });
});

t.test('a first turn of audio not understood still opens with the disclosure', async (t) => {
  const conv = (await api(b, 'POST', '/conversations', { token, body: {} })).body.id as string;
  const noise = new Int16Array(8000).map((_, i) => Math.round(3000 * Math.sin(i / 3)));
  const wav = Buffer.from(writeWav({ sampleRateHz: 8000, channels: [noise] }));
  const res = await fetch(`${b}/conversations/${conv}/audio`, { method: 'POST', body: wav, headers: { 'content-type': 'audio/wav', authorization: `Bearer ${token}` } });
  const body = await res.json() as { agent: { text: string }; caller: { text: string } };
  t.equal(res.status, 200, JSON.stringify(body));
  t.equal(body.caller.text, '', 'nothing understood');
  t.ok(body.agent.text.startsWith(DEFAULT_AGENT.disclosure_script), `the disclosure first: ${body.agent.text}`);
  const again = await fetch(`${b}/conversations/${conv}/audio`, { method: 'POST', body: wav, headers: { 'content-type': 'audio/wav', authorization: `Bearer ${token}` } });
  const second = await again.json() as { agent: { text: string } };
  t.notOk(second.agent.text.includes(DEFAULT_AGENT.disclosure_script), 'once');
});
