/** DND registry (import, check, delete) and consent log (record, export JSON/CSV): roles and tenant isolation. */
import t from 'tap';
import { startTestServer, api, login, API_KEY } from '../helpers/server.js';
import { userToken } from '../helpers/lead_fixtures.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const b = srv.baseUrl;
const admin = await login(b);
const operator = await userToken(srv, 'ten_dev', 'op@example.com', 'operator');
const other = await userToken(srv, 'ten_other', 'admin@other.example', 'admin');

t.test('bulk import normalises, de-duplicates and is all-or-nothing', async (t) => {
  const r = await api(b, 'POST', '/dnd/import', { headers: { 'x-api-key': API_KEY }, body: { numbers: ['98000 00001', '+919800000001', '+12025550123'], source: 'ndnc_2026_01' } });
  t.same(r.body, { received: 3, added: 2, already_listed: 0 });
  const again = await api(b, 'POST', '/dnd/import', { token: operator, body: { numbers: ['+919800000001'] } });
  t.same(again.body, { received: 1, added: 0, already_listed: 1 });
  const bad = await api(b, 'POST', '/dnd/import', { token: operator, body: { numbers: ['+919800000009', 'garbage'] } });
  t.equal(bad.status, 400);
  t.equal(bad.body.fields[0].path, 'body.numbers.1');
  t.equal((await api(b, 'GET', '/dnd/check?phone=%2B919800000009', { token: operator })).body.dnd, false, 'nothing imported from a refused batch');
  t.equal((await api(b, 'POST', '/dnd/import', { token: operator, body: { numbers: [] } })).status, 400);
});

t.test('check reports listing, consent and whether the number may be called', async (t) => {
  const c = await api(b, 'GET', '/dnd/check?phone=9800000001', { token: operator });
  t.match(c.body, { phone: '+919800000001', dnd: true, source: 'ndnc_2026_01', consented: false, callable: false });
  await api(b, 'POST', '/consents', { token: operator, body: { phone: '+919800000001', method: 'web_form', consented_at: '2026-01-05T10:00:00+05:30', evidence: '=HYPERLINK("x")' } });
  t.match((await api(b, 'GET', '/dnd/check?phone=9800000001', { token: operator })).body, { dnd: true, consented: true, callable: true });
  t.match((await api(b, 'GET', '/dnd/check?phone=9800000001', { token: other })).body, { dnd: false, consented: false }, 'another tenant\'s registry');
});

t.test('consent log: validation, JSON and CSV export (admin), formula cells neutralised', async (t) => {
  t.equal((await api(b, 'POST', '/consents', { token: operator, body: { phone: '+919800000002', method: 'ivr', consented_at: 'yesterday' } })).status, 400);
  t.equal((await api(b, 'POST', '/consents', { token: operator, body: { phone: '+919800000002', consented_at: '2026-01-05T10:00:00Z' } })).status, 400, 'method required');
  t.equal((await api(b, 'POST', '/consents', { token: operator, body: { phone: '+919800000003', source: 'sms_reply', consented_at: '2026-01-05T10:00:00Z' } })).body.method, 'sms_reply', 'source is an alias of method');
  t.equal((await api(b, 'GET', '/consents/export', { token: operator })).status, 403);
  const json = await api(b, 'GET', '/consents/export', { token: admin });
  t.equal(json.status, 200);
  t.equal(json.body.data.length, 2);
  t.match(json.body.data[0], { e164: '+919800000001', method: 'web_form', consented_at: '2026-01-05T04:30:00.000Z', evidence: '=HYPERLINK("x")' });
  t.match(json.body.data[0].recorded_by, /^usr_|.+/);
  const res = await fetch(`${b}/consents/export?format=csv`, { headers: { authorization: `Bearer ${admin}` } });
  t.match(res.headers.get('content-type'), /text\/csv/);
  const lines = (await res.text()).trim().split('\r\n');
  t.equal(lines[0], 'id,e164,method,consented_at,evidence,recorded_by,created_at');
  t.match(lines[1], /,\+919800000001,web_form,2026-01-05T04:30:00.000Z,"'=HYPERLINK\(""x""\)",/);
  t.same((await api(b, 'GET', '/consents/export', { token: other })).body.data, [], 'tenant isolation');
});

t.test('delete needs admin and is tenant-scoped', async (t) => {
  t.equal((await api(b, 'DELETE', '/dnd/%2B12025550123', { token: operator })).status, 403);
  t.equal((await api(b, 'DELETE', '/dnd/%2B12025550123', { token: other })).status, 404);
  t.equal((await api(b, 'DELETE', '/dnd/%2B12025550123', { token: admin })).status, 204);
  t.equal((await api(b, 'DELETE', '/dnd/%2B12025550123', { token: admin })).status, 404);
  t.equal((await api(b, 'GET', '/dnd/check?phone=%2B12025550123', { token: operator })).body.dnd, false);
  t.equal((await api(b, 'GET', '/dnd/check?phone=%2B12025550123')).status, 401);
});
