import t from 'tap';
import { loadConfig } from '../../src/config.js';
import { createTools, actionStatus, TOOL_ACTIONS } from '../../src/tools/index.js';
import { AdapterError } from '../../src/adapters/types.js';

const inv = (tool: string, args: Record<string, string> = {}) => ({ tenantId: 'ten_dev', callId: 'call_1', tool, arguments: args });
const simConfig = loadConfig({});

t.test('simulated actions report the provider-style status of section 6.1', async (t) => {
  const tools = createTools(simConfig);
  t.same(tools.modes, { calendar_booking: 'simulated', crm_sync: 'simulated', messaging_brochure: 'simulated' });
  t.same(await tools.run(inv('calendar_booking', { start: '2026-11-24T15:00:00+05:30' })), { type: 'calendar.event.create', status: '201_created' });
  t.same(await tools.run(inv('crm_sync', { outcome: 'completed' })), { type: 'crm.lead.update', status: '200_ok' });
  t.same(await tools.run(inv('messaging_brochure', { template: 'brochure' })), { type: 'messaging.template.send', status: '202_accepted' });
  t.same(await tools.run(inv('calendar_booking', { start: 'next tuesday' })), { type: 'calendar.event.create', status: '422_unprocessable_entity' });
  t.same(await tools.run(inv('calendar_booking', {})), { type: 'calendar.event.create', status: '422_unprocessable_entity' });
});

t.test('failures map to <http_status>_<text>; a run never throws for a known tool', async (t) => {
  const seen: string[] = [];
  const tools = createTools(simConfig, { failures: { crm_sync: 503, messaging_brochure: 429 }, onRun: (i, a) => seen.push(`${i.tool}:${a.status}`) });
  t.same(await tools.run(inv('crm_sync')), { type: 'crm.lead.update', status: '503_unavailable' });
  t.same(await tools.run(inv('messaging_brochure')), { type: 'messaging.template.send', status: '429_rate_limited' });
  const aborted = new AbortController();
  aborted.abort();
  t.same(await tools.run(inv('crm_sync'), { signal: aborted.signal }), { type: 'crm.lead.update', status: '499_canceled' });
  t.same(seen, ['crm_sync:503_unavailable', 'messaging_brochure:429_rate_limited', 'crm_sync:499_canceled']);
  await t.rejects(tools.run(inv('fax_machine')), new AdapterError('tool', 'invalid', 'unknown tool fax_machine'));
  t.equal(actionStatus(418), '418_error');
});

t.test('a tool slot is live only with a wired integration and all its keys', async (t) => {
  const { TOOL_PROVIDERS } = await import('../../src/providers/index.js');
  const calls: string[] = [];
  const saved = { ...TOOL_PROVIDERS.crm };
  TOOL_PROVIDERS.crm.hubspot = () => ({ invoke: async (i) => { calls.push(i.tool); return { httpStatus: 200, result: { id: 'contact-1' } }; } });
  t.teardown(() => { delete TOOL_PROVIDERS.crm.hubspot; Object.assign(TOOL_PROVIDERS.crm, saved); });
  const tools = createTools(loadConfig({ HUBSPOT_API_KEY: 'hs-key', CALCOM_API_KEY: 'cal-key' }));
  t.same(tools.modes, { calendar_booking: 'simulated', crm_sync: 'live', messaging_brochure: 'simulated' }, 'calendar lacks CALCOM_EVENT_TYPE_ID');
  t.same(await tools.run(inv('crm_sync')), { type: 'crm.lead.update', status: '200_ok', result: { id: 'contact-1' } });
  t.same(calls, ['crm_sync']);
  t.same(await tools.run(inv('messaging_brochure')), { type: 'messaging.template.send', status: '202_accepted' });
  t.same(Object.values(TOOL_ACTIONS), ['calendar.event.create', 'crm.lead.update', 'messaging.template.send']);
});

t.test('tools behind an adapter server (ADAPTER_TOOLS_URL): same statuses, failures as statuses', async (t) => {
  const { startAdapterServer } = await import('../../src/adapters/index.js');
  const { createLocalTools } = await import('../../src/tools/index.js');
  const slow = {
    modes: createLocalTools().modes,
    run: (_i: unknown, o?: { signal?: AbortSignal }) => new Promise<never>((_, reject) => o?.signal?.addEventListener('abort', () => reject(new Error('stopped')))),
    close: async () => {},
  };
  const server = await startAdapterServer({ tools: createLocalTools({ failures: { messaging_brochure: 503 } }) }, '127.0.0.1:0');
  const slowServer = await startAdapterServer({ tools: slow }, '127.0.0.1:0');
  t.teardown(async () => { await server.close(); await slowServer.close(); });
  const remote = createTools(loadConfig({ ADAPTER_TOOLS_URL: server.address }));
  t.same(remote.modes, { calendar_booking: 'grpc', crm_sync: 'grpc', messaging_brochure: 'grpc' });
  t.same(await remote.run(inv('calendar_booking', { start: '2026-11-24T15:00:00+05:30' })), { type: 'calendar.event.create', status: '201_created' });
  t.same(await remote.run(inv('calendar_booking', { start: 'soon' })), { type: 'calendar.event.create', status: '422_unprocessable_entity' });
  t.same(await remote.run(inv('messaging_brochure')), { type: 'messaging.template.send', status: '503_unavailable' });
  await t.rejects(remote.run(inv('fax_machine')), { code: 'invalid' });
  const slowRemote = createTools(loadConfig({ ADAPTER_TOOLS_URL: slowServer.address, ADAPTER_TIMEOUT_MS: '100' }));
  t.same(await slowRemote.run(inv('crm_sync')), { type: 'crm.lead.update', status: '504_timeout' });
  const dead = createTools(loadConfig({ ADAPTER_TOOLS_URL: '127.0.0.1:1' }));
  t.same(await dead.run(inv('crm_sync')), { type: 'crm.lead.update', status: '503_unavailable' });
  await Promise.all([remote.close(), slowRemote.close(), dead.close()]);
});
