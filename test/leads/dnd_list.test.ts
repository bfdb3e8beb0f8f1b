/** GET /v1/dnd lists the tenant's DND registry by number, a page at a time, and never another tenant's. */
import t from 'tap';
import { startTestServer, api, API_KEY } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const b = srv.baseUrl;
const mine = await makeTenant(srv, 'mine');
const theirs = await makeTenant(srv, 'theirs');

t.test('pages through the numbers in order, with their source and time', async (t) => {
  const numbers = ['+919800000005', '+919800000001', '+12025550123', '+919800000003', '+14155550100'];
  t.equal((await api(b, 'POST', '/dnd/import', { token: mine.operatorToken, body: { numbers, source: 'ndnc' } })).status, 200);
  await api(b, 'POST', '/dnd/import', { token: theirs.operatorToken, body: { numbers: ['+919811111111'] } });

  const first = await api(b, 'GET', '/dnd?limit=2', { token: mine.operatorToken });
  t.equal(first.status, 200);
  t.same(first.body.data.map((d: any) => d.e164), ['+12025550123', '+14155550100']);
  t.match(first.body.data[0], { source: 'ndnc', created_at: /Z$/ });
  t.equal(first.body.next_cursor, '+14155550100');
  const second = await api(b, 'GET', `/dnd?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { token: mine.operatorToken });
  t.same(second.body.data.map((d: any) => d.e164), ['+919800000001', '+919800000003']);
  const last = await api(b, 'GET', `/dnd?limit=2&cursor=${encodeURIComponent(second.body.next_cursor)}`, { token: mine.operatorToken });
  t.same(last.body.data.map((d: any) => d.e164), ['+919800000005']);
  t.equal(last.body.next_cursor, null, 'a short page is the last');
  const all = await api(b, 'GET', '/dnd', { token: mine.adminToken });
  t.equal(all.body.data.length, 5, "admins read it too; the other tenant's number is not there");
  t.notOk(all.body.data.some((d: any) => d.e164 === '+919811111111'));
});

t.test('the service API key reads its own tenant; bad paging is a 400', async (t) => {
  const byKey = await api(b, 'GET', '/dnd', { headers: { 'x-api-key': API_KEY } });
  t.equal(byKey.status, 200);
  t.same(byKey.body.data, [], 'the dev tenant has no DND numbers');
  for (const q of ['limit=0', 'limit=201', 'cursor=abc', 'cursor=%2B0123', 'unknown=1']) {
    const r = await api(b, 'GET', `/dnd?${q}`, { token: mine.operatorToken });
    t.equal(r.status, 400, q);
    t.equal(r.body.code, 'validation_failed', q);
  }
});
