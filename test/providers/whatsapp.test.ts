/**
 * messaging_brochure against a local fake of the WhatsApp Cloud API: the documented template message to the
 * callee's number, body parameters from the call, and Graph's errors as statuses: bad token (401), unknown
 * template (404), parameter count (400), throughput throttling (retried: nothing was sent), 500 (not retried).
 */
import t, { type Test } from 'tap';
import { createLogger } from '../../src/log.js';
import { createLocalTools, type ToolInvocation } from '../../src/tools/index.js';
import { WhatsAppTemplate } from '../../src/providers/whatsapp/template.js';
import { graphError, startWhatsAppFake } from '../fakes/whatsapp.js';

const TOKEN = 'EAAGtest';
const log = createLogger('silent');

async function setup(t: Test, o: { template?: string; params?: string[]; token?: string } = {}) {
  const fake = await startWhatsAppFake({ token: TOKEN, phoneNumberId: '106540352242922', templates: { project_brochure: 1, hello_world: 0 } });
  t.teardown(() => fake.close());
  const wa = new WhatsAppTemplate({ token: o.token ?? TOKEN, baseUrl: `${fake.url}/v21.0`, phoneNumberId: '106540352242922',
    templateName: o.template ?? 'project_brochure', language: 'en', bodyParams: o.params ?? ['customer_name'], log });
  return { fake, runner: createLocalTools({ integrations: { messaging_brochure: wa } }) };
}

const inv = (args: Record<string, string> = { template: 'brochure', customer_name: 'Asha' }): ToolInvocation =>
  ({ tenantId: 't', callId: 'c', tool: 'messaging_brochure', arguments: args, to: '+91 98123 45678' });

t.test('sends the approved template to the callee: 200_ok with the message id', async (t) => {
  const { fake, runner } = await setup(t);
  const out = await runner.run(inv(), { timeoutMs: 3000 });
  t.equal(out.status, '200_ok');
  t.match(out.result, { message_id: /^wamid\./, wa_id: '919812345678' });
  t.same(fake.requests[0].body, { messaging_product: 'whatsapp', recipient_type: 'individual', to: '919812345678', type: 'template',
    template: { name: 'project_brochure', language: { code: 'en' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Asha' }] }] } });
  t.equal(fake.requests[0].path, '/v21.0/106540352242922/messages');
  t.equal(fake.requests[0].headers.authorization, `Bearer ${TOKEN}`);
});

t.test('a template without parameters sends no components', async (t) => {
  const { fake, runner } = await setup(t, { template: 'hello_world', params: [] });
  t.equal((await runner.run(inv(), { timeoutMs: 3000 })).status, '200_ok');
  t.equal(fake.requests[0].body.template.components, undefined);
});

t.test("Graph's errors are recorded with their HTTP status and code", async (t) => {
  const bad = await setup(t, { token: 'expired' });
  t.match(await bad.runner.run(inv(), { timeoutMs: 3000 }), { status: '401_unauthorized', result: { code: 190 } });
  const unknown = await setup(t, { template: 'nope' });
  t.match(await unknown.runner.run(inv(), { timeoutMs: 3000 }), { status: '404_not_found', result: { code: 132001 } });
  const count = await setup(t, { params: [] });
  t.match(await count.runner.run(inv(), { timeoutMs: 3000 }), { status: '400_bad_request', result: { code: 131008 } });
});

t.test('throttled (code 130429, nothing sent) is retried; a 500 is not (it may have been sent)', async (t) => {
  const { fake, runner } = await setup(t);
  fake.injectNext(graphError(400, 130429, '(#130429) Rate limit hit'));
  t.equal((await runner.run(inv(), { timeoutMs: 3000 })).status, '200_ok');
  t.equal(fake.requests.length, 2);
  fake.injectNext({ status: 500, body: { error: { message: 'An unknown error occurred', type: 'OAuthException', code: 1 } } });
  t.equal((await runner.run(inv(), { timeoutMs: 3000 })).status, '500_internal_error');
  t.equal(fake.requests.length, 3);
  t.equal(fake.sent.length, 1, 'one message reached the callee');
});

t.test('no number to send to never leaves; a slow Graph ends at the deadline as 504', async (t) => {
  const { runner } = await setup(t);
  t.equal((await runner.run({ tenantId: 't', callId: 'c', tool: 'messaging_brochure', arguments: {} }, { timeoutMs: 3000 })).status, '400_bad_request');
  const slow = await setup(t);
  slow.fake.injectNext({ status: 429, headers: { 'retry-after': '1' }, body: graphError(429, 4, 'Application request limit reached').body });
  const out = await slow.runner.run(inv(), { timeoutMs: 300 });
  t.equal(out.status, '504_timeout');
});
