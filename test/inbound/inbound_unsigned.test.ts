/** Without SERVICE_WEBHOOK_SECRET, inbound webhooks are public and unsigned in the simulator (HMAC is optional in the contract; src/inbound/README.md). */
import t from 'tap';
import { startTestServer, api } from '../helpers/server.js';

const srv = await startTestServer({ env: { CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' } });
t.teardown(() => srv.close());

t.test('unsigned delivery accepted; redelivery is a duplicate; a signature header is ignored', async (t) => {
  const body = { id: 'evt_u1', type: 'booking.created', tenant_id: 'ten_dev', data: { booking_id: 'bk_u1', phone: '+919844444444' } };
  const r = await api(srv.baseUrl, 'POST', '/webhooks/calendar', { body });
  t.equal(r.status, 200);
  t.match(r.body, { duplicate: false, effect: 'booking_stored' });
  const again = await api(srv.baseUrl, 'POST', '/webhooks/calendar', { body, headers: { 'x-signature': 't=1,v1=00' } });
  t.match(again.body, { duplicate: true });
  const other = await api(srv.baseUrl, 'POST', '/webhooks/crm', { body: { ...body, type: 'lead.updated' } });
  t.match(other.body, { duplicate: false, effect: 'recorded' }, 'ids are per source');
  const form = await api(srv.baseUrl, 'POST', '/webhooks/crm', { raw: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(form.status, 415, 'JSON only');
});
