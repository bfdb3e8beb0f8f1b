/** The OpenAPI document describes exactly the routes that exist, each with its auth rule. */
import t from 'tap';
import { startTestServer, api } from '../helpers/server.js';

const srv = await startTestServer();
t.teardown(() => srv.close());

t.test('every mounted route is documented and every documented route is mounted', async (t) => {
  const doc = (await api(srv.baseUrl, 'GET', '/openapi.json')).body;
  t.equal(doc.openapi, '3.1.0');
  const documented = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { 'x-auth': string; summary: string }>>)) {
    for (const [method, op] of Object.entries(ops)) {
      documented.add(`${method.toUpperCase()} ${path}`);
      t.type(op['x-auth'], 'string', `${method} ${path} states its auth`);
      t.ok(op.summary.length > 10, `${method} ${path} has a summary`);
    }
  }
  // Probe each documented HTTP path: it must not be our 404 "no route" answer.
  for (const key of documented) {
    const [method, path] = key.split(' ');
    const ops = doc.paths[path];
    if (ops[method.toLowerCase()]['x-websocket']) continue;
    const concrete = path.replace(/^\/v1/, '').replace(/\{[^}]+\}/g, 'zz_missing_1');
    const r = await api(srv.baseUrl, method, concrete, { body: ['POST', 'PUT', 'PATCH'].includes(method) ? {} : undefined });
    t.not(r.body?.detail?.startsWith?.('no route for'), true, `${key} is mounted`);
  }
  const mounted = srv.table.specs.map((s) => `${s.method.toUpperCase()} /v1${s.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
  for (const m of mounted) t.ok(documented.has(m), `${m} documented`);
  for (const w of srv.table.sockets) t.ok(documented.has(`GET /v1${w.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`), `socket ${w.path} documented`);
});

t.test('request bodies carry JSON schemas', async (t) => {
  const doc = (await api(srv.baseUrl, 'GET', '/openapi.json')).body;
  const put = doc.paths['/v1/agents/{agent_id}'].put;
  const schema = put.requestBody.content['application/json'].schema;
  t.ok(schema.properties.interruption_sensitivity, 'agent schema documented');
  t.equal(schema.additionalProperties, false, 'unknown fields refused, as documented');
});
