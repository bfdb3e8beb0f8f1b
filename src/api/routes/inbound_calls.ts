/**
 * Calls that come in, and the keypad. Where a call to one of the tenant's numbers goes (its agent and webhook, else
 * the tenant's inbound defaults), what an agent's keys do, and, in the simulator, a lead calling in.
 * Reads: operator JWT or service key; settings: admin JWT.
 */
import { z } from 'zod';
import { principalOf } from '../auth_middleware.js';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { ApiError, notFound } from '../../errors.js';
import { InboundRouting, type InboundSetting } from '../../calls/inbound.js';
import { KeypadBody, KeypadRepo } from '../../calls/keypad.js';
import { customerUrl } from '../../net/customer_url.js';
import { AgentIdParam } from './agents.js';
import { parse } from '../validate.js';
import { SEND_DIGITS } from '../../carriers/dtmf.js';

const E164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number such as +14155550100');
const NumberParam = z.object({ number: E164 });
const SettingBody = z.strictObject({
  /** the agent that answers (null or left out: the tenant's inbound default, else its `default` agent) */
  agent_id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'lowercase letters, digits, - and _').nullable().optional(),
  /** where call.completed of these calls goes (null or left out: the default's, else none) */
  webhook_url: customerUrl(2048).nullable().optional(),
});
const SimulatedCallBody = z.strictObject({ from: E164, to: E164 });
const CallIdParam = z.object({ id: z.string().regex(/^call_[0-9a-f]{24}$/, 'must be call_<24 hex>') });
const TonesBody = z.strictObject({ digits: z.string().regex(SEND_DIGITS, 'keys 0-9, *, #, A-D and w (a half-second wait), at most 32') });

export function inboundCallRoutes(t: RouteTable, deps: AppDeps): void {
  const routing = new InboundRouting(deps.db);
  const keypads = new KeypadRepo(deps.db);
  const setting = async (tenantId: string, b: z.infer<typeof SettingBody>): Promise<InboundSetting> => {
    if (b.agent_id && !(await deps.repos.agents.get(tenantId, b.agent_id))) throw notFound(`agent ${b.agent_id}`);
    return { agent_id: b.agent_id ?? null, webhook_url: b.webhook_url ?? null };
  };

  t.add({
    method: 'get', path: '/inbound-numbers', tag: 'Inbound calls', auth: { kind: 'auth', role: 'operator', apiKey: true },
    summary: 'The tenant\'s numbers that take calls, each with its agent and webhook, and the defaults for those that name none.',
    responses: { 200: '{ defaults: {agent_id, webhook_url}, numbers: [{number, agent_id, webhook_url, created_at, updated_at}] }' },
    handler: async (req) => routing.list(principalOf(req).tenantId),
  });
  t.add({
    method: 'put', path: '/inbound-defaults', tag: 'Inbound calls', auth: { kind: 'auth', role: 'admin' }, body: SettingBody,
    summary: 'The tenant\'s inbound agent and webhook: for its numbers that name none (no agent: the `default` agent).',
    responses: { 200: '{agent_id, webhook_url}', 404: 'unknown agent_id' },
    handler: async (req) => {
      const tenantId = principalOf(req).tenantId;
      return routing.putDefaults(tenantId, await setting(tenantId, bodyOf(req, SettingBody)));
    },
  });
  t.add({
    method: 'put', path: '/inbound-numbers/:number', tag: 'Inbound calls', auth: { kind: 'auth', role: 'admin' }, body: SettingBody,
    summary: 'Takes calls to this number (one of the carrier account\'s, E.164) for the tenant: with its own agent and webhook, '
      + 'or the defaults. A number belongs to one tenant: another tenant\'s is 409.',
    responses: { 200: 'changed', 201: 'claimed', 404: 'unknown agent_id', 409: 'another tenant\'s number' },
    handler: async (req, res) => {
      const tenantId = principalOf(req).tenantId;
      const { number } = parse(NumberParam, req.params, 'params');
      const r = await routing.putNumber(tenantId, number, await setting(tenantId, bodyOf(req, SettingBody)));
      if (r === 'taken') throw new ApiError('conflict', `${number} takes calls for another tenant`);
      res.status(r.created ? 201 : 200).json(r.number);
    },
  });
  t.add({
    method: 'delete', path: '/inbound-numbers/:number', tag: 'Inbound calls', auth: { kind: 'auth', role: 'admin' },
    summary: 'Stops taking calls to this number: they are refused (busy) from now on.',
    responses: { 204: 'removed', 404: 'not a number of the tenant' },
    handler: async (req, res) => {
      const { number } = parse(NumberParam, req.params, 'params');
      if (!(await routing.removeNumber(principalOf(req).tenantId, number))) throw notFound(`inbound number ${number}`);
      res.status(204).end();
    },
  });

  t.add({
    method: 'get', path: '/agents/:agent_id/keypad', tag: 'Inbound calls', auth: { kind: 'auth', role: 'operator', apiKey: true },
    summary: 'What each key the caller presses does on this agent\'s calls ({"0": "operator", "9": "opt_out"}); {} = every key is input to the dialog.',
    responses: { 200: 'the keypad', 404: 'unknown agent' },
    handler: async (req) => {
      const tenantId = principalOf(req).tenantId;
      const { agent_id } = parse(AgentIdParam, req.params, 'params');
      if (!(await deps.repos.agents.get(tenantId, agent_id))) throw notFound(`agent ${agent_id}`);
      return (await keypads.get(tenantId, agent_id)) ?? {};
    },
  });
  t.add({
    method: 'put', path: '/agents/:agent_id/keypad', tag: 'Inbound calls', auth: { kind: 'auth', role: 'admin' }, body: KeypadBody,
    summary: 'Sets what the caller\'s keys do on this agent\'s calls: each of 0-9, * and # to operator (a person), opt_out (the number goes on the do-not-disturb list at once, '
      + 'the caller hears that it was honoured and the call ends opted_out) or end_call. Other keys are the caller\'s input to the dialog. Calls '
      + 'dispatched from now on use it.',
    responses: { 200: 'the keypad', 404: 'unknown agent' },
    handler: async (req) => {
      const tenantId = principalOf(req).tenantId;
      const { agent_id } = parse(AgentIdParam, req.params, 'params');
      const keys = await keypads.put(tenantId, agent_id, bodyOf(req, KeypadBody) as Record<string, never>);
      if (!keys) throw notFound(`agent ${agent_id}`);
      return keys;
    },
  });

  t.add({
    method: 'post', path: '/calls/:id/tones', tag: 'Inbound calls', auth: { kind: 'auth', role: 'operator', apiKey: true }, body: TonesBody,
    summary: 'The agent presses keys on a live call (a phone menu at the other end): sent as the carrier\'s own DTMF where it has one '
      + '(Plivo), else as tones in the call\'s audio (Twilio, Exotel, the simulator).',
    responses: { 202: 'sent', 404: 'unknown call', 409: 'the call is not live on this instance' },
    handler: async (req, res) => {
      const tenantId = principalOf(req).tenantId;
      const r = CallIdParam.safeParse(req.params);
      if (!r.success) throw notFound('call');
      const call = await deps.calls.get(tenantId, r.data.id);
      if (!deps.callEngine.sendDigits(call.id, bodyOf(req, TonesBody).digits)) throw new ApiError('conflict', `call ${call.id} is not live on this instance (${call.status})`);
      res.status(202).json({ call_id: call.id, sent: true });
    },
  });
  t.add({
    method: 'post', path: '/calls/inbound', tag: 'Inbound calls', auth: { kind: 'auth', role: 'operator', apiKey: true }, body: SimulatedCallBody,
    summary: 'Simulator only: a lead (`from`) calls one of the tenant\'s numbers (`to`, routed by PUT /inbound-numbers/{number}). '
      + 'The call runs as a carrier\'s would: the number\'s agent, the caller\'s context when the number is a lead\'s, the disclosure, '
      + 'no calling-hours gate; the simulated caller behaves as the simulator\'s numbers say. 409 with a live carrier.',
    responses: { 201: 'the call (direction inbound, status ringing)', 404: 'not a number of the tenant', 409: 'a live carrier is in use', 429: 'concurrency_limited' },
    handler: async (req, res) => {
      const p = principalOf(req);
      const body = bodyOf(req, SimulatedCallBody);
      const call = await deps.callEngine.simulateInbound(p.tenantId, body);
      res.status(201).location(`${deps.config.publicBaseUrl}/calls/${call.id}`).json(call);
    },
  });
}
