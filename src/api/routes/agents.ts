/** GET /agents (any tenant JWT) and PUT /agents/:id (admin JWT). */
import { z } from 'zod';
import { parse } from '../validate.js';
import { principalOf } from '../auth_middleware.js';
import type { RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';

export const LANGUAGE_TAG = /^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|\d{3}))?$/;

/** Runtime settings of spec §2.3; shared with the client-library dispatch path (inline agent). */
export const AgentRuntimeSettingsSchema = z.strictObject({
  role: z.string().min(1).max(200),
  voice: z.string().min(1).max(100),
  language: z.string().regex(LANGUAGE_TAG, 'must be a language tag such as en-US'),
  interruption_sensitivity: z.number().min(0).max(1),
  turn_detection_timeout_ms: z.number().int().min(200).max(5000),
});

export const AgentBody = AgentRuntimeSettingsSchema.extend({
  name: z.string().min(1).max(200),
  disclosure_script: z.string().min(1).max(2000),
  qualify_script: z.array(z.strictObject({
    field: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a snake_case key'),
    question: z.string().min(1).max(500),
  })).max(20),
});

export const AgentIdParam = z.object({ agent_id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'lowercase letters, digits, - and _; at most 64') });

export function agentRoutes(t: RouteTable, deps: AppDeps): void {
  t.add({
    method: 'get', path: '/agents', tag: 'agents', auth: { kind: 'auth' },
    summary: "List the tenant's agents with their scripts and runtime settings.",
    handler: async (req) => ({ data: await deps.repos.agents.list(principalOf(req).tenantId) }),
  });
  t.add({
    method: 'put', path: '/agents/:agent_id', tag: 'agents', auth: { kind: 'auth', role: 'admin' }, body: AgentBody,
    summary: 'Create or replace an agent: disclosure script, qualify script (ordered {field, question} steps) and runtime settings.',
    responses: { 200: 'replaced', 201: 'created' },
    handler: async (req, res) => {
      const { agent_id } = parse(AgentIdParam, req.params, 'params');
      const body = parse(AgentBody, req.body);
      const { agent, created } = await deps.repos.agents.put(principalOf(req).tenantId, agent_id, body);
      res.status(created ? 201 : 200).json(agent);
    },
  });
}
