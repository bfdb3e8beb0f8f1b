/**
 * What broke: with SERVICE_WEBHOOK_SECRET unset, an anonymous POST /v1/webhooks/crm naming any tenant_id put a
 * number on that tenant's do-not-disturb list, and live mode started without a word. Now unsigned inbound webhooks
 * are accepted only when INBOUND_WEBHOOKS=unsigned (the simulator's default without a secret, with a warning at
 * start); live mode refuses to start otherwise; and a tenant's own inbound secret (created by its admin) signs
 * events that then belong to that tenant, whatever the body says.
 */
import t from 'tap';
import { PassThrough } from 'node:stream';
import { api, login, startTestServer } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';
import { sign } from '../../src/inbound/signature.js';
import { loadConfig } from '../../src/config.js';

const QUIET = { CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0', LEAD_SCHEDULER_TICK_MS: '0' };
const now = () => Math.floor(Date.now() / 1000);

async function post(base: string, path: string, body: unknown, signature?: { secret: string; key?: string }) {
  const raw = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature) headers['x-signature'] = sign(signature.secret, raw, now(), signature.key);
  return api(base, 'POST', path, { raw, headers });
}

const optOut = (id: string, phone: string, tenant_id?: string) => ({ id, type: 'contact.opted_out', ...(tenant_id ? { tenant_id } : {}), data: { phone } });

t.test('INBOUND_WEBHOOKS=signed without a deployment secret: only tenant secrets sign, and they name the tenant', async (t) => {
  const srv = await startTestServer({ env: { ...QUIET, INBOUND_WEBHOOKS: 'signed' } });
  t.teardown(() => srv.close());
  const b = srv.baseUrl;
  const acme = await makeTenant(srv, 'acme');
  const victim = await makeTenant(srv, 'victim');
  const dnd = async (tenant: string, phone: string) => (await srv.services.db.query(`SELECT 1 FROM dnd_numbers WHERE tenant_id = $1 AND e164 = $2`, [tenant, phone])).rows.length;

  const anonymous = await post(b, '/webhooks/crm', optOut('evt_anon', '+919811100001', victim.tenantId));
  t.equal(anonymous.status, 401, 'an anonymous opt-out naming a tenant is refused');
  t.match(anonymous.body.detail, /must be signed/);
  t.equal(await dnd(victim.tenantId, '+919811100001'), 0, 'and the victim\'s DND list is untouched');

  const created = await api(b, 'POST', '/inbound-secrets', { token: acme.adminToken, body: { name: 'hubspot relay' } });
  t.equal(created.status, 201);
  t.match(created.body, { id: /^isk_[0-9a-f]{24}$/, name: 'hubspot relay', tenant_id: acme.tenantId, revoked_at: null, secret: /^whsec_/ });
  const key = { secret: created.body.secret as string, key: created.body.id as string };

  const own = await post(b, '/webhooks/crm', optOut('evt_1', '+919811100002'), key);
  t.equal(own.status, 200, 'signed with the tenant secret, tenant_id left out');
  t.match(own.body, { duplicate: false, effect: 'dnd_added' });
  t.equal(await dnd(acme.tenantId, '+919811100002'), 1, "the number is on the signing tenant's list");
  t.equal((await post(b, '/webhooks/crm', optOut('evt_2', '+919811100003', acme.tenantId), key)).status, 200, 'naming its own tenant is fine');

  const cross = await post(b, '/webhooks/crm', optOut('evt_3', '+919811100004', victim.tenantId), key);
  t.equal(cross.status, 403, "a body naming another tenant than the secret's");
  t.equal(cross.body.code, 'forbidden');
  t.equal(await dnd(victim.tenantId, '+919811100004'), 0);

  t.equal((await post(b, '/webhooks/crm', optOut('evt_4', '+919811100005'), { secret: 'whsec_guessed-secret-value', key: key.key })).status, 401, 'a wrong secret');
  t.equal((await post(b, '/webhooks/crm', optOut('evt_5', '+919811100005'), { secret: key.secret, key: 'isk_000000000000000000000000' })).status, 401, 'an unknown key');
  t.equal((await post(b, '/webhooks/crm', optOut('evt_6', '+919811100005'), { secret: key.secret })).status, 401, 'the secret without its key id (no deployment secret to check it against)');

  const calendar = await post(b, '/webhooks/calendar', { id: 'evt_cal', type: 'booking.created', data: { booking_id: 'bk_t1' } }, key);
  t.match(calendar.body, { effect: 'booking_stored' }, 'the calendar hook takes it too');

  const list = await api(b, 'GET', '/inbound-secrets', { token: acme.adminToken });
  t.same(list.body.data.map((s: { id: string }) => s.id), [key.key]);
  t.notOk(JSON.stringify(list.body).includes(key.secret), 'never listed again');
  t.same((await api(b, 'GET', '/inbound-secrets', { token: victim.adminToken })).body.data, [], "another tenant's list is its own");
  t.equal((await api(b, 'DELETE', `/inbound-secrets/${key.key}`, { token: victim.adminToken })).status, 404, 'another tenant cannot revoke it');
  t.equal((await api(b, 'GET', '/inbound-secrets', { token: acme.operatorToken })).status, 403, 'admins only');

  // rotation: a second secret works alongside; the first, once deleted, stops
  const second = await api(b, 'POST', '/inbound-secrets', { token: acme.adminToken, body: { name: 'rotated' } });
  t.not(second.body.secret, key.secret);
  t.equal((await api(b, 'DELETE', `/inbound-secrets/${key.key}`, { token: acme.adminToken })).status, 204);
  t.equal((await post(b, '/webhooks/crm', optOut('evt_7', '+919811100006'), key)).status, 401, 'the revoked secret');
  t.equal((await post(b, '/webhooks/crm', optOut('evt_8', '+919811100006'), { secret: second.body.secret, key: second.body.id })).status, 200, 'the new one');
});

t.test('with SERVICE_WEBHOOK_SECRET the deployment-wide secret still signs for any tenant, and tenant secrets work beside it', async (t) => {
  const DEPLOY = 'deployment-inbound-secret-0123456789';
  const srv = await startTestServer({ env: { ...QUIET, SERVICE_WEBHOOK_SECRET: DEPLOY } });
  t.teardown(() => srv.close());
  const b = srv.baseUrl;
  t.equal(srv.config.inboundWebhooks, 'signed');
  t.equal((await post(b, '/webhooks/crm', optOut('evt_d1', '+919811100010', 'ten_dev'), { secret: DEPLOY })).status, 200);
  t.equal((await post(b, '/webhooks/crm', optOut('evt_d2', '+919811100010'), { secret: DEPLOY })).status, 400, 'the deployment secret names no tenant: the body must');
  t.equal((await post(b, '/webhooks/crm', optOut('evt_d3', '+919811100010', 'ten_dev'))).status, 401, 'unsigned');
  const admin = await login(b);
  const k = (await api(b, 'POST', '/inbound-secrets', { token: admin, body: { name: 'k' } })).body;
  t.equal((await post(b, '/webhooks/crm', optOut('evt_d4', '+919811100011'), { secret: k.secret, key: k.id })).status, 200);
});

t.test('the simulator without a secret accepts unsigned webhooks and says so at start', async (t) => {
  const logs = new PassThrough();
  let text = '';
  logs.on('data', (c) => { text += c; });
  const srv = await startTestServer({ env: { ...QUIET, LOG_LEVEL: 'warn' }, logStream: logs });
  t.teardown(() => srv.close());
  t.equal(srv.config.inboundWebhooks, 'unsigned');
  t.match(text, /inbound webhooks .* accept unsigned requests naming any tenant/);
  t.equal((await post(srv.baseUrl, '/webhooks/crm', { id: 'evt_s1', type: 'lead.updated', tenant_id: 'ten_dev', data: {} })).status, 200);
});

t.test('live mode refuses to start with inbound webhooks open unless told', async (t) => {
  const live = { SERVICE_MODE: 'live', SERVICE_JWT_SECRET: 'x'.repeat(32), SERVICE_DEV_PASSWORD: 'a-real-password', SERVICE_API_KEY: 'k'.repeat(20),
    PUBLIC_BASE_URL: 'https://voice.example.com/v1', ADAPTER_CARRIER_URL: '127.0.0.1:1', ADAPTER_STT_URL: '127.0.0.1:1', ADAPTER_TTS_URL: '127.0.0.1:1' };
  t.throws(() => loadConfig(live), /SERVICE_MODE=live requires SERVICE_WEBHOOK_SECRET \(or INBOUND_WEBHOOKS=signed .*INBOUND_WEBHOOKS=unsigned/);
  t.equal(loadConfig({ ...live, SERVICE_WEBHOOK_SECRET: 's'.repeat(16) }).inboundWebhooks, 'signed');
  t.equal(loadConfig({ ...live, INBOUND_WEBHOOKS: 'signed' }).inboundWebhooks, 'signed', 'per-tenant secrets only');
  t.equal(loadConfig({ ...live, INBOUND_WEBHOOKS: 'unsigned' }).inboundWebhooks, 'unsigned', 'said explicitly');
});
