/**
 * An agent's call handling: what a machine answer gets (voicemail, voicemail_message) and where a transfer to a
 * human goes (transfer_number), through PUT and PATCH, validated, documented, and frozen into a call's snapshot.
 */
import t from 'tap';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const admin = await login(srv.baseUrl);

t.test('PUT gives the defaults; PUT and PATCH set, keep and clear them', async (t) => {
  const plain = await api(srv.baseUrl, 'PUT', '/agents/vm', { token: admin, body: { name: 'VM' } });
  t.equal(plain.status, 201);
  t.match(plain.body, { voicemail: 'hang_up', voicemail_message: null, transfer_number: null });
  const set = await api(srv.baseUrl, 'PUT', '/agents/vm', { token: admin,
    body: { voicemail: 'leave_message', voicemail_message: 'Hi {{customer_name}}, please call us back.', transfer_number: '+14155550199' } });
  t.equal(set.status, 200);
  t.match(set.body, { voicemail: 'leave_message', voicemail_message: 'Hi {{customer_name}}, please call us back.', transfer_number: '+14155550199' });
  const kept = await api(srv.baseUrl, 'PATCH', '/agents/vm', { token: admin, body: { voice: 'nova' } });
  t.match(kept.body, { voice: 'nova', voicemail: 'leave_message', transfer_number: '+14155550199' }, 'left out = unchanged');
  const cleared = await api(srv.baseUrl, 'PATCH', '/agents/vm', { token: admin, body: { transfer_number: null, voicemail: 'hang_up' } });
  t.match(cleared.body, { voicemail: 'hang_up', transfer_number: null, voicemail_message: 'Hi {{customer_name}}, please call us back.' });
  const listed = (await api(srv.baseUrl, 'GET', '/agents', { token: admin })).body.data.find((a: { id: string }) => a.id === 'vm');
  t.match(listed, { voicemail: 'hang_up', transfer_number: null });
});

t.test('bad values are validation errors naming the field', async (t) => {
  for (const [bad, path] of [[{ voicemail: 'hangup' }, 'body.voicemail'], [{ transfer_number: '4155550199' }, 'body.transfer_number'],
    [{ voicemail_message: '' }, 'body.voicemail_message']] as const) {
    const r = await api(srv.baseUrl, 'PATCH', '/agents/vm', { token: admin, body: bad });
    t.equal(r.status, 400, JSON.stringify(bad));
    t.equal(r.body.code, 'validation_failed');
    t.ok(r.body.errors?.some?.((e: { path: string }) => e.path === path) || JSON.stringify(r.body).includes(path), `names ${path}`);
  }
});

t.test('the OpenAPI document shows them on PUT and PATCH', async (t) => {
  const doc = (await api(srv.baseUrl, 'GET', '/openapi.json')).body;
  for (const method of ['put', 'patch']) {
    const schema = JSON.stringify(doc.paths['/v1/agents/{agent_id}'][method].requestBody);
    for (const f of ['voicemail', 'leave_message', 'voicemail_message', 'transfer_number']) t.ok(schema.includes(f), `${method} documents ${f}`);
  }
});

t.test('a dispatched call keeps the agent\'s handling in its snapshot', async (t) => {
  await api(srv.baseUrl, 'PUT', '/agents/vm2', { token: admin, body: { voicemail: 'leave_message', voicemail_message: 'Call us back.', transfer_number: '+14155550198' } });
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { headers: { 'x-api-key': API_KEY }, body: { to: '+15005550002', agent_id: 'vm2' } });
  t.equal(d.status, 201);
  const r = await srv.services.db.query<{ agent: Record<string, unknown> }>('SELECT agent FROM calls WHERE id = $1', [d.body.id]);
  t.match(r.rows[0].agent, { voicemail: 'leave_message', voicemail_message: 'Call us back.', transfer_number: '+14155550198' });
});
