/** Issue 33: agents gain a knowledge base (`knowledge`) in PUT/PATCH, validated, stored, and used by the demo agent. */
import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const admin = await login(srv.baseUrl);

const knowledge = [
  { question: 'Is there parking?', answer: 'Yes, every flat at Lakeview comes with two covered parking spaces.' },
  'Lakeview is a ten minute walk from the Green Line metro station.',
];

t.test('PUT stores knowledge (a plain fact as {answer}); PATCH replaces it; left out is []', async (t) => {
  const put = await api(srv.baseUrl, 'PUT', '/agents/kb', { token: admin, body: { knowledge } });
  t.equal(put.status, 201, JSON.stringify(put.body));
  t.same(put.body.knowledge, [knowledge[0], { answer: knowledge[1] }]);
  const patched = await api(srv.baseUrl, 'PATCH', '/agents/kb', { token: admin, body: { voice: 'nova' } });
  t.same(patched.body.knowledge, put.body.knowledge, 'PATCH without knowledge keeps it');
  const cleared = await api(srv.baseUrl, 'PATCH', '/agents/kb', { token: admin, body: { knowledge: [] } });
  t.same(cleared.body.knowledge, []);
  const bare = await api(srv.baseUrl, 'PUT', '/agents/kb2', { token: admin, body: {} });
  t.same(bare.body.knowledge, []);
});

t.test('limits: entries, lengths, shape', async (t) => {
  const tooMany = await api(srv.baseUrl, 'PUT', '/agents/kb', { token: admin, body: { knowledge: Array.from({ length: 51 }, (_, i) => `fact ${i}`) } });
  t.equal(tooMany.status, 400);
  t.match(tooMany.body, { code: 'validation_failed' });
  const long = await api(srv.baseUrl, 'PUT', '/agents/kb', { token: admin, body: { knowledge: [{ question: 'q', answer: 'x'.repeat(1001) }] } });
  t.equal(long.status, 400);
  const noAnswer = await api(srv.baseUrl, 'PUT', '/agents/kb', { token: admin, body: { knowledge: [{ question: 'Is there parking?' }] } });
  t.equal(noAnswer.status, 400);
  const extra = await api(srv.baseUrl, 'PUT', '/agents/kb', { token: admin, body: { knowledge: [{ answer: 'a', secret: 1 }] } });
  t.equal(extra.status, 400);
});

t.test('the demo agent answers from the tenant agent\'s knowledge, and notes what it cannot answer', async (t) => {
  const tenant = await makeTenant(srv, 'kbdemo');
  const put = await api(srv.baseUrl, 'PUT', '/agents/default', { token: tenant.adminToken, body: { knowledge } });
  t.equal(put.status, 200);
  const conv = await api(srv.baseUrl, 'POST', '/conversations', { token: tenant.adminToken, body: { domain: 'Lakeview' } });
  const turn = (text: string) => api(srv.baseUrl, 'POST', `/conversations/${conv.body.id}/turns`, { token: tenant.adminToken, body: { text } });
  const first = await turn('Hi, I am Ravi. Is there parking at Lakeview?');
  t.match(first.body.agent.text, /two covered parking spaces/);
  t.equal(first.body.agent.entities.customer_name, 'Ravi');
  const metro = await turn('How far is the metro?');
  t.match(metro.body.agent.text, /Green Line metro/);
  const unknown = await turn('Do you allow pets?');
  t.match(unknown.body.agent.text, /team will follow up/);
  t.equal(unknown.body.agent.entities.open_questions, 'Do you allow pets?');
});
