/**
 * Campaigns (Bearer JWT or API key; writes need operator or admin, reads any role):
 * POST /campaigns, GET /campaigns, GET /campaigns/:id (with progress), POST /campaigns/:id/{start,pause,resume,cancel}.
 * States: draft -start-> running -pause-> paused -resume-> running; draft|running|paused -cancel-> canceled;
 * running -> completed when no contact is pending, dialing or due for retry. Any other move is a 409.
 */
import { z } from 'zod';
import { ApiError } from '../../errors.js';
import { parse } from '../validate.js';
import { principalOf } from '../auth_middleware.js';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { CampaignBody } from '../../campaigns/schema.js';
import { TRANSITIONS, type CampaignAction } from '../../campaigns/repo.js';

const IdParam = z.object({ id: z.string().regex(/^cmp_[0-9a-f]{24}$/, 'must be a campaign id') });
const ListQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(500).default(100) });

export function campaignRoutes(t: RouteTable, deps: AppDeps): void {
  const writer = { kind: 'auth', role: 'operator', apiKey: true } as const;
  const reader = { kind: 'auth', apiKey: true } as const;
  t.add({
    method: 'post', path: '/campaigns', tag: 'campaigns', auth: writer, body: CampaignBody,
    summary: 'Create a campaign (state draft): agent_id, contacts [{phone (E.164), context?}] (at most 10,000; duplicates merged), calling_window {start, end} "HH:MM" local in timezone (IANA), max_concurrency, retry {max_attempts, backoff_minutes, on: [no_answer, busy]}, tools?, webhook_url?.',
    responses: { 201: 'created (draft)' },
    handler: async (req, res) => {
      const body = bodyOf(req, CampaignBody);
      const p = principalOf(req);
      if (!(await deps.repos.agents.get(p.tenantId, body.agent_id))) {
        throw new ApiError('validation_failed', `body.agent_id: no agent ${body.agent_id} in this tenant`, { fields: [{ path: 'body.agent_id', message: 'unknown agent' }] });
      }
      res.status(201).json(await deps.campaigns.repo.create(p.tenantId, body, p.sub));
    },
  });
  t.add({
    method: 'get', path: '/campaigns', tag: 'campaigns', auth: reader, query: ListQuery,
    summary: "The tenant's campaigns, newest first (settings and state; progress is on GET /campaigns/{id}).",
    handler: async (req) => ({ data: await deps.campaigns.repo.list(principalOf(req).tenantId, parse(ListQuery, req.query, 'query').limit) }),
  });
  t.add({
    method: 'get', path: '/campaigns/:id', tag: 'campaigns', auth: reader,
    summary: 'A campaign with progress: contacts by state (pending, dialing, retry, done, failed, blocked, canceled), total and attempts.',
    handler: async (req) => deps.campaigns.repo.get(principalOf(req).tenantId, parse(IdParam, req.params, 'params').id),
  });
  for (const action of Object.keys(TRANSITIONS) as CampaignAction[]) {
    const tr = TRANSITIONS[action];
    t.add({
      method: 'post', path: `/campaigns/:id/${action}`, tag: 'campaigns', auth: writer,
      summary: `${action[0].toUpperCase()}${action.slice(1)} a campaign: ${tr.from.join(' | ')} -> ${tr.to}; 409 from any other state.${action === 'cancel' ? ' Contacts not yet dialed become canceled; calls in flight finish.' : ''}`,
      responses: { 200: 'updated campaign', 409: 'illegal state change' },
      handler: async (req) => {
        const out = await deps.campaigns.repo.transition(principalOf(req).tenantId, parse(IdParam, req.params, 'params').id, action);
        deps.campaigns.nudge();
        return out;
      },
    });
  }
}
