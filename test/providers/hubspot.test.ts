/**
 * crm_sync against a local fake of HubSpot's contacts API: a phone-only callee is created then updated (never
 * duplicated), an email goes through batch upsert, mapped call fields land in portal properties, and failures
 * come back as statuses through the tool runner: 401, 429 retried, 5xx retried only where idempotent, an
 * unknown property (400), an unreachable server.
 */
import t, { type Test } from 'tap';
import { createLogger } from '../../src/log.js';
import { createLocalTools, GrpcTools, type ToolInvocation } from '../../src/tools/index.js';
import { startAdapterServer } from '../../src/adapters/index.js';
import { HubSpotCrm, parsePropertyMap } from '../../src/providers/hubspot/crm.js';
import { startHubSpotFake } from '../fakes/hubspot.js';

const TOKEN = 'pat-na1-test';
const log = createLogger('silent');

async function setup(t: Test, map = '', token = TOKEN) {
  const fake = await startHubSpotFake({ token, properties: ['ai_budget'] });
  t.teardown(() => fake.close());
  const crm = new HubSpotCrm({ apiKey: TOKEN, baseUrl: fake.url, propertyMap: parsePropertyMap(map), log });
  const runner = createLocalTools({ integrations: { crm_sync: crm } });
  return { fake, crm, runner };
}

const inv = (args: Record<string, string>, to = '+919812345678'): ToolInvocation => ({ tenantId: 'ten_x', callId: 'call_1', tool: 'crm_sync', arguments: args, to });

t.test('phone-only callee: searched, created (201), then found and updated (200), one contact', async (t) => {
  const { fake, runner } = await setup(t, 'budget:ai_budget');
  const first = await runner.run(inv({ customer_name: 'Asha Rao', budget: '8000000', intent: 'buy', outcome: 'qualified' }), { timeoutMs: 3000 });
  t.same(first, { type: 'crm.lead.update', status: '201_created', result: { contact_id: '101', created: true } });
  t.same(fake.contacts.get('101'), { firstname: 'Asha', lastname: 'Rao', phone: '+919812345678', ai_budget: '8000000' }, 'unmapped fields (intent) are not sent');
  const again = await runner.run(inv({ customer_name: 'Asha Rao', budget: '9000000' }), { timeoutMs: 3000 });
  t.same(again, { type: 'crm.lead.update', status: '200_ok', result: { contact_id: '101', created: false } });
  t.equal(fake.contacts.size, 1);
  t.equal(fake.contacts.get('101')!.ai_budget, '9000000');
  t.same(fake.requests.map((r) => `${r.method} ${r.path}`), [
    'POST /crm/v3/objects/contacts/search', 'POST /crm/v3/objects/contacts', 'POST /crm/v3/objects/contacts/search', 'PATCH /crm/v3/objects/contacts/101']);
  t.equal(fake.requests[0].headers.authorization, `Bearer ${TOKEN}`);
});

t.test('with an email: batch upsert keyed by email', async (t) => {
  const { fake, runner } = await setup(t);
  const out = await runner.run(inv({ customer_name: 'Lee', email: 'lee@example.com' }), { timeoutMs: 3000 });
  t.equal(out.status, '200_ok');
  t.same(fake.requests[0].body, { inputs: [{ idProperty: 'email', id: 'lee@example.com', properties: { firstname: 'Lee', phone: '+919812345678', email: 'lee@example.com' } }] });
  t.match(out.result, { contact_id: '101', created: true });
});

t.test('401 is recorded as 401_unauthorized, not retried', async (t) => {
  const { fake, runner } = await setup(t, '', 'another-token');
  const out = await runner.run(inv({ customer_name: 'Asha' }), { timeoutMs: 3000 });
  t.equal(out.status, '401_unauthorized');
  t.match(out.result, { error: /Authentication credentials/ });
  t.equal(fake.requests.length, 1);
});

t.test('429 with retry-after is waited out and retried', async (t) => {
  const { fake, runner } = await setup(t);
  fake.injectNext({ status: 429, headers: { 'retry-after': '0' }, body: { status: 'error', message: 'You have reached your secondly limit.', category: 'RATE_LIMITS' } });
  const out = await runner.run(inv({ customer_name: 'Asha' }), { timeoutMs: 3000 });
  t.equal(out.status, '201_created');
  t.equal(fake.requests.length, 3, 'search (429), search, create');
});

t.test('a 500 on the search (a read) is retried; a 500 on the create is not (it may have created)', async (t) => {
  const { fake, runner } = await setup(t);
  fake.injectNext({ status: 500, path: /search/, body: { status: 'error', message: 'internal', category: 'INTERNAL_ERROR' } });
  fake.injectNext({ status: 500, path: /contacts$/, body: { status: 'error', message: 'internal', category: 'INTERNAL_ERROR' } });
  const out = await runner.run(inv({ customer_name: 'Asha' }), { timeoutMs: 3000 });
  t.equal(out.status, '500_internal_error');
  t.same(fake.requests.map((r) => r.path), ['/crm/v3/objects/contacts/search', '/crm/v3/objects/contacts/search', '/crm/v3/objects/contacts']);
});

t.test('a property the portal lacks: 400 with the provider message', async (t) => {
  const { runner } = await setup(t, 'intent:not_a_property');
  const out = await runner.run(inv({ customer_name: 'Asha', intent: 'buy' }), { timeoutMs: 3000 });
  t.equal(out.status, '400_bad_request');
  t.match(out.result, { error: /not_a_property/ });
});

t.test('an unreachable HubSpot and a missing identity are statuses, never exceptions', async (t) => {
  const crm = new HubSpotCrm({ apiKey: TOKEN, baseUrl: 'http://127.0.0.1:9', propertyMap: {}, log });
  const runner = createLocalTools({ integrations: { crm_sync: crm } });
  t.equal((await runner.run(inv({ customer_name: 'Asha' }), { timeoutMs: 3000 })).status, '503_unavailable');
  const { runner: r2 } = await setup(t);
  t.equal((await r2.run({ tenantId: 't', callId: 'c', tool: 'crm_sync', arguments: { customer_name: 'Asha' } }, { timeoutMs: 3000 })).status, '400_bad_request');
});

t.test('property map parsing', async (t) => {
  t.same(parsePropertyMap('budget:ai_budget, intent : ai_intent,bad'), { budget: 'ai_budget', intent: 'ai_intent' });
  t.same(parsePropertyMap(undefined), {});
});

t.test('over the tools gRPC adapter the number called still reaches HubSpot', async (t) => {
  const { fake, runner } = await setup(t);
  const server = await startAdapterServer({ tools: runner });
  const remote = new GrpcTools(server.address, 3000);
  t.teardown(async () => { await remote.close(); await server.close(); });
  const out = await remote.run(inv({ customer_name: 'Asha' }, '+14155550100'), { timeoutMs: 3000 });
  t.same(out, { type: 'crm.lead.update', status: '201_created' });
  t.equal(fake.contacts.get('101')!.phone, '+14155550100');
});
