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

const PROSE = `You call for Acme Realty about Lakeview. Be brief and warm.
May I have your name? What kind of home are you looking for? What budget do you have in mind?
Are you a first-time buyer? When would suit you for a site visit?`;

t.test('PUT with only what the contract names (disclosure and a text qualify script) creates with documented defaults', async (t) => {
  const r = await api(srv.baseUrl, 'PUT', '/agents/lakeview', { token: admin, body: { disclosure_script: 'Hi, an AI assistant of Acme Realty here.', qualify_script: PROSE } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  t.match(r.body, {
    id: 'lakeview', name: 'lakeview', qualify_script: PROSE, role: 'sales qualifier', voice: 'alloy', language: 'en-US',
    interruption_sensitivity: 0.5, turn_detection_timeout_ms: 800,
  });
  t.same(r.body.qualify_steps.map((s: { field: string }) => s.field), ['customer_name', 'intent', 'budget', 'first_time_buyer', 'scheduled_slot']);
  const listed = (await api(srv.baseUrl, 'GET', '/agents', { token: admin })).body.data.find((a: { id: string }) => a.id === 'lakeview');
  t.equal(listed.qualify_script, PROSE, 'returned as written');
  // the same PUT again updates (200), still without the runtime settings
  const again = await api(srv.baseUrl, 'PUT', '/agents/lakeview', { token: admin, body: { disclosure_script: 'Hello again.', qualify_script: PROSE } });
  t.equal(again.status, 200);
  t.equal(again.body.disclosure_script, 'Hello again.');
  const bare = await api(srv.baseUrl, 'PUT', '/agents/bare', { token: admin, body: {} });
  t.equal(bare.status, 201);
  t.same(bare.body.qualify_script, bare.body.qualify_steps, 'the default steps');
});

t.test('PATCH changes only the fields given', async (t) => {
  await api(srv.baseUrl, 'PUT', '/agents/patchme', { token: admin, body: agent });
  const r = await api(srv.baseUrl, 'PATCH', '/agents/patchme', { token: admin, body: { voice: 'nova', qualify_script: 'What is your name?' } });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.match(r.body, { name: agent.name, role: agent.role, voice: 'nova', language: agent.language, qualify_script: 'What is your name?' });
  t.same(r.body.qualify_steps, [{ field: 'customer_name', question: 'What is your name?' }]);
  const steps = await api(srv.baseUrl, 'PATCH', '/agents/patchme', { token: admin, body: { qualify_script: agent.qualify_script } });
  t.same(steps.body.qualify_script, agent.qualify_script, 'back to structured steps');
  t.equal((await api(srv.baseUrl, 'PATCH', '/agents/nobody', { token: admin, body: { voice: 'x' } })).status, 404);
  const other = await makeTenant(srv, 'patch');
  t.equal((await api(srv.baseUrl, 'PATCH', '/agents/patchme', { token: other.operatorToken, body: { voice: 'x' } })).status, 403);
  t.equal((await api(srv.baseUrl, 'PATCH', '/agents/patchme', { token: other.adminToken, body: { voice: 'x' } })).status, 404, 'another tenant\'s agent does not exist for them');
  const bad = await api(srv.baseUrl, 'PATCH', '/agents/patchme', { token: admin, body: { interruption_sensitivity: 2 } });
  t.equal(bad.status, 400);
});

// Issue 33: plain instructions ("Ask about budget, …") were refused with 400 "the text holds no question"; a script a
// language model could follow is never refused now: its topics become the steps, or the default steps when it names none.
t.test('a text script of plain instructions is accepted; its errors name the text form', async (t) => {
  const plain = await api(srv.baseUrl, 'PUT', '/agents/plain', { token: admin, body: { qualify_script: 'Ask about budget, intent and a good time for a site visit.' } });
  t.equal(plain.status, 201, JSON.stringify(plain.body));
  t.same(plain.body.qualify_steps.map((s: { field: string }) => s.field), ['budget', 'intent', 'scheduled_slot']);
  const none = await api(srv.baseUrl, 'PUT', '/agents/noq', { token: admin, body: { qualify_script: 'Be nice. Ask nothing.' } });
  t.equal(none.status, 201);
  t.same(none.body.qualify_steps.map((s: { field: string }) => s.field), ['customer_name', 'intent', 'budget', 'scheduled_slot'], 'the default steps');
  const long = await api(srv.baseUrl, 'PUT', '/agents/long', { token: admin, body: { qualify_script: `${'x'.repeat(8000)}?` } });
  t.equal(long.status, 400);
  t.match(long.body.fields[0].message, /8000/);
});

t.test('the demo conversation of a tenant asks the questions of its text script', async (t) => {
  const tenant = await makeTenant(srv, 'textscript');
  const put = await api(srv.baseUrl, 'PUT', '/agents/default', { token: tenant.adminToken, body: { qualify_script: 'Which city do you live in? What is your name?' } });
  t.equal(put.status, 200);
  const conv = await api(srv.baseUrl, 'POST', '/conversations', { token: tenant.adminToken, body: {} });
  const turn = await api(srv.baseUrl, 'POST', `/conversations/${conv.body.id}/turns`, { token: tenant.adminToken, body: { text: 'Hello' } });
  t.match(turn.body.agent.text, /Which city do you live in\?$/);
  const next = await api(srv.baseUrl, 'POST', `/conversations/${conv.body.id}/turns`, { token: tenant.adminToken, body: { text: 'Pune' } });
  t.same(next.body.agent.entities, { city_live: 'Pune' });
  t.match(next.body.agent.text, /What is your name\?$/);
});
