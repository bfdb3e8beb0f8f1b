/** Health, readiness, integrations and the OpenAPI document. */
import type { RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { integrationStatus } from '../../integrations.js';
import { ApiError } from '../../errors.js';

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
    summary: 'Per provider slot (carrier, speech_to_text, dialog_model, text_to_speech, crm, calendar, messaging): live or simulated, from which keys are present. Key values never appear.',
    handler: () => ({ service_mode: deps.config.SERVICE_MODE, data: integrationStatus(deps.config) }),
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
