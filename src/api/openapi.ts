/** OpenAPI 3.1 built from the route table, so every route that exists is described and nothing else is. */
import { z } from 'zod';
import { roleLabel, type RouteTable } from './route_table.js';
import { accepts } from './auth_middleware.js';
import { ENDED_REASON_DESCRIPTIONS, ENDED_REASONS } from '../calls/ended_reasons.js';

const toOpenApiPath = (p: string) => '/v1' + p.replace(/:([A-Za-z_]+)/g, '{$1}');

const problem = { description: 'application/problem+json error', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };

export function buildOpenApi(t: RouteTable, info: { version: string; serverUrl: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const s of t.specs) {
    const path = toOpenApiPath(s.path);
    const params = [...s.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const responses: Record<string, unknown> = {};
    for (const [code, description] of Object.entries(s.responses ?? { 200: 'OK' })) responses[code] = { description };
    responses.default = problem;
    const op: Record<string, unknown> = {
      summary: s.summary,
      tags: [s.tag],
      operationId: `${s.method}${path.replace(/[^A-Za-z0-9]+/g, '_')}`,
      'x-auth': roleLabel(s.auth),
      'x-auth-accepts': accepts(s.auth),
      security: s.auth.kind === 'public' ? (s.auth.optionalJwt ? [{}, { bearer: [] }] : []) : s.auth.apiKey ? [{ bearer: [] }, { apiKey: [] }] : [{ bearer: [] }],
      parameters: [...params, ...(s.query ? queryParams(s.query) : [])],
      responses,
    };
    if (s.body) {
      const content: Record<string, unknown> = { 'application/json': { schema: z.toJSONSchema(s.body, { io: 'input', unrepresentable: 'any' }) } };
      for (const type of s.requestTypes ?? []) content[type] = {};
      op.requestBody = { required: true, content };
    }
    (paths[path] ??= {})[s.method] = op;
  }
  for (const w of t.sockets) {
    (paths[toOpenApiPath(w.path)] ??= {}).get = {
      summary: `WebSocket: ${w.summary}`, tags: [w.tag], 'x-auth': roleLabel(w.auth), 'x-auth-accepts': accepts(w.auth), 'x-websocket': true,
      operationId: `ws${toOpenApiPath(w.path).replace(/[^A-Za-z0-9]+/g, '_')}`,
      responses: { 101: { description: 'Switching Protocols' }, default: problem },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'voicecall API', version: info.version, description: 'Outbound AI voice calls, demo conversations, leads, handoffs, privacy, analytics and live streams. Errors are application/problem+json with a stable `code`. '
      + 'Each operation states its auth in x-auth (words) and x-auth-accepts (the credentials it takes: anonymous, operator_jwt, admin_jwt, '
      + 'operator_api_key, admin_api_key; admin includes operator), both generated from the rule that enforces it.' },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT or service API key' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      },
      schemas: {
        // every ended_reason a call can end with (src/calls/ended_reasons.ts), each with what it means
        EndedReason: {
          type: 'string', enum: ENDED_REASONS, 'x-enum-descriptions': ENDED_REASON_DESCRIPTIONS,
          description: `Why a call ended (ended_reason on GET /v1/calls/{id}, in call.completed and on the live stream's status items; null while it runs):\n${
            ENDED_REASONS.map((r) => `- ${r}: ${ENDED_REASON_DESCRIPTIONS[r]}`).join('\n')}`,
        },
        Problem: {
          type: 'object', required: ['type', 'title', 'status', 'code', 'detail'],
          properties: { type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, code: { type: 'string' }, detail: { type: 'string' }, instance: { type: 'string' }, fields: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } } },
        },
      },
    },
  };
}

function queryParams(schema: z.ZodType) {
  const js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({ name, in: 'query', required: js.required?.includes(name) ?? false, schema: s }));
}
