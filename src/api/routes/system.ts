/** Health, readiness, integrations and the OpenAPI document. */
import type { RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { z } from 'zod';
import { integrationStatus, verifiedIntegrationStatus } from '../../integrations.js';
import { parse } from '../validate.js';
import { ApiError } from '../../errors.js';

const IntegrationsQuery = z.strictObject({ verify: z.enum(['true', 'false']).default('false').transform((v) => v === 'true') });

export function systemRoutes(t: RouteTable, deps: AppDeps, openapi: () => unknown): void {
  t.add({
    method: 'get', path: '/health', tag: 'system', auth: { kind: 'public' },
    summary: 'Liveness: the process is up and serving HTTP.',
    handler: () => ({ status: 'ok', mode: deps.config.SERVICE_MODE }),
  });
  t.add({
    method: 'get', path: '/ready', tag: 'system', auth: { kind: 'public' },
    summary: 'Readiness: the database and the bus answer. 503 with the failing part otherwise.',
    responses: { 200: 'ready', 503: 'a dependency is down' },
    handler: async () => {
      const checks = { database: await probe(() => deps.db.query('SELECT 1')), bus: await probe(() => deps.bus.ping()) };
      const down = Object.entries(checks).filter(([, ok]) => !ok).map(([k]) => k);
      if (down.length) throw new ApiError('unavailable', `not ready: ${down.join(', ')} unreachable`, { checks });
      return { status: 'ready', checks, storage: deps.db.kind, bus: deps.bus.kind };
    },
  });
  t.add({
    method: 'get', path: '/integrations', tag: 'system', auth: { kind: 'auth', role: 'admin' },
    summary: 'Per provider slot (carrier, speech_to_text, dialog_model, text_to_speech, crm, calendar, messaging): live or simulated, from which keys are present, '
      + 'and how the provider was chosen (chosen_by: setting, or keys in live mode). With verify=true each live slot\'s keys are checked by one '
      + 'authenticated read against the provider\'s configured base URL (the account, projects, model list, user, voice, …): verification.result is '
      + 'verified, rejected (with the provider\'s http_status) or unreachable, within 5 s. Admin only (the checks are outbound requests on the '
      + 'deployment\'s keys). Key values never appear.',
    query: IntegrationsQuery,
    handler: async (req) => {
      const { verify } = parse(IntegrationsQuery, req.query, 'query');
      return { service_mode: deps.config.SERVICE_MODE, data: verify ? await verifiedIntegrationStatus(deps.config) : integrationStatus(deps.config) };
    },
  });
  t.add({
    method: 'get', path: '/openapi.json', tag: 'system', auth: { kind: 'public' },
    summary: 'This document (OpenAPI 3.1).',
    handler: () => openapi(),
  });
}

async function probe(fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await Promise.race([fn(), new Promise((_, rej) => setTimeout(() => rej(new Error('timeout')), 2000).unref())]);
    return true;
  } catch {
    return false;
  }
}
