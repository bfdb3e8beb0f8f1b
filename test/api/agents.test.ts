import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const admin = await login(srv.baseUrl);
const agent = {
  name: 'Realty qualifier', disclosure_script: 'Hi, this is an AI assistant from Acme Realty; this call may be recorded.',
  qualify_script: [{ field: 'customer_name', question: 'Who am I speaking with?' }, { field: 'budget', question: 'What is your budget?' }],
  role: 'real-estate qualifier', voice: 'aria', language: 'en-IN', interruption_sensitivity: 0.7, turn_detection_timeout_ms: 650,
};

t.test('admin stores an agent; everyone in the tenant reads it', async (t) => {
  const put = await api(srv.baseUrl, 'PUT', '/agents/realty', { token: admin, body: agent });
  t.equal(put.status, 201);
  t.match(put.body, { ...agent, id: 'realty' });
  const again = await api(srv.baseUrl, 'PUT', '/agents/realty', { token: admin, body: { ...agent, voice: 'nova' } });
  t.equal(again.status, 200);
  t.equal(again.body.voice, 'nova');
  const list = await api(srv.baseUrl, 'GET', '/agents', { token: admin });
  t.same(list.body.data.map((a: { id: string }) => a.id), ['default', 'realty']);
});

t.test('operators read but cannot write; other tenants see only their own', async (t) => {
  const other = await makeTenant(srv, 'agents');
  t.equal((await api(srv.baseUrl, 'PUT', '/agents/realty', { token: other.operatorToken, body: agent })).status, 403);
  const theirs = await api(srv.baseUrl, 'GET', '/agents', { token: other.operatorToken });
  t.same(theirs.body.data.map((a: { id: string }) => a.id), ['default']);
  // Same agent id in two tenants are two agents.
  t.equal((await api(srv.baseUrl, 'PUT', '/agents/realty', { token: other.adminToken, body: { ...agent, voice: 'theirs' } })).status, 201);
  const mine = await api(srv.baseUrl, 'GET', '/agents', { token: admin });
  t.equal(mine.body.data.find((a: { id: string }) => a.id === 'realty').voice, 'nova');
});

t.test('runtime settings are validated', async (t) => {
  for (const bad of [{ interruption_sensitivity: -0.1 }, { turn_detection_timeout_ms: 50 }, { turn_detection_timeout_ms: 800.5 }, { language: 'english' }, { qualify_script: [{ field: 'Bad Key', question: 'q' }] }]) {
    const r = await api(srv.baseUrl, 'PUT', '/agents/x', { token: admin, body: { ...agent, ...bad } });
    t.equal(r.status, 400, JSON.stringify(bad));
    t.equal(r.body.code, 'validation_failed');
  }
});
