/**
 * The simulator's callee can press keys (+15005550010 presses 9 at the first question), so the keypad is testable
 * end to end offline: with 9 mapped to opt_out the number goes on the tenant's do-not-disturb list, the caller hears
 * that it was honoured, the call ends opted_out, and the next dispatch to that number is refused; without a keypad
 * the key is the caller's input to the dialog and the call goes on.
 */
import t from 'tap';
import { API_KEY, api, login, startTestServer, waitForCallEnd } from '../helpers/server.js';

const srv = await startTestServer({ env: { SIM_TIME_SCALE: '20' } });
t.teardown(() => srv.close());
const b = srv.baseUrl;
const auth = { headers: { 'x-api-key': API_KEY } };
const KEYS = '+15005550010';
const events = async (id: string) => (await api(b, 'GET', `/calls/${id}/events?limit=500`, auth)).body.data as Array<{ type: string; speaker?: string; text?: string }>;

t.test('without a keypad the key is input to the dialog, and the call goes on', async (t) => {
  const d = await api(b, 'POST', '/calls/dispatch', { ...auth, body: { to: KEYS, agent_id: 'default' } });
  t.equal(d.status, 201, JSON.stringify(d.body));
  const done = await waitForCallEnd(b, d.body.id, { 'x-api-key': API_KEY });
  t.not(done.ended_reason, 'opted_out');
  const items = await events(d.body.id);
  const pressed = items.findIndex((e) => e.type === 'transcript' && e.speaker === 'caller' && e.text === '[keypad] 9');
  t.ok(pressed >= 0, 'the press is a caller turn');
  t.ok(items.slice(pressed + 1).some((e) => e.type === 'transcript' && e.speaker === 'agent'), 'the agent answered it');
});

t.test('9 mapped to opt_out: on the DND list, told so, ended opted_out, and not called again', async (t) => {
  const admin = await login(b);
  t.equal((await api(b, 'PUT', '/agents/keys', { token: admin, body: {} })).status, 201);
  t.equal((await api(b, 'PUT', '/agents/keys/keypad', { token: admin, body: { 9: 'opt_out' } })).status, 200);
  const d = await api(b, 'POST', '/calls/dispatch', { ...auth, body: { to: KEYS, agent_id: 'keys' } });
  t.equal(d.status, 201);
  const done = await waitForCallEnd(b, d.body.id, { 'x-api-key': API_KEY });
  t.match(done, { status: 'completed', ended_reason: 'opted_out' });
  const items = await events(d.body.id);
  t.ok(items.some((e) => e.type === 'transcript' && e.speaker === 'caller' && e.text === '[keypad] 9'), 'the press is in the transcript');
  t.ok(items.some((e) => e.type === 'transcript' && e.speaker === 'agent' && /won't be called again/.test(e.text ?? '')), 'the caller heard it was honoured');
  t.match((await api(b, 'GET', `/dnd/check?phone=${encodeURIComponent(KEYS)}`, auth)).body, { dnd: true });
  const again = await api(b, 'POST', '/calls/dispatch', { ...auth, body: { to: KEYS, agent_id: 'keys' } });
  t.equal(again.status, 422, 'the next dispatch to the number is refused');
});
