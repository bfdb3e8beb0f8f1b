/**
 * Routes are grouped by their first path segment (src/api/route_table.ts): what Express matched before still
 * matches (any case, a trailing slash, params), and what it did not is still a 404 problem.
 */
import t from 'tap';
import { RouteTable } from '../../src/api/route_table.js';
import { startTestServer, api, login, API_KEY } from '../helpers/server.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const token = await login(srv.baseUrl);

t.test('every declared route is reached through its group, in any case and with a trailing slash', async (t) => {
  t.equal((await api(srv.baseUrl, 'GET', '/agents', { token })).status, 200);
  t.equal((await api(srv.baseUrl, 'GET', '/AGENTS/', { token })).status, 200, 'case-insensitive, trailing slash allowed, as Express matches');
  t.equal((await api(srv.baseUrl, 'GET', '/Leads', { headers: { 'x-api-key': API_KEY } })).status, 200);
  const lead = await api(srv.baseUrl, 'GET', '/leads/lead_000000000000000000000000', { token });
  t.equal(lead.status, 404, 'a param route of the group answers itself');
  t.equal(lead.body.code, 'not_found');
  t.notMatch(lead.body.detail, /no route/, 'the route, not the fallback, said so');
  t.equal((await api(srv.baseUrl, 'GET', '/health')).status, 200, 'a group of one route');
});

t.test('a path outside every group, or a method its group lacks, is a 404 problem', async (t) => {
  for (const [method, path] of [['GET', '/'], ['GET', '/nope'], ['POST', '/health'], ['DELETE', '/leads'], ['GET', '/leadsx']] as const) {
    const r = await api(srv.baseUrl, method, path, { token });
    t.equal(r.status, 404, `${method} ${path}`);
    t.equal(r.body.code, 'not_found');
  }
});

t.test('a route table refuses a path whose first segment is a parameter (it would belong to no group)', async (t) => {
  const table = new RouteTable().add({ method: 'get', path: '/:tenant/calls', summary: 's', tag: 't', auth: { kind: 'public' }, handler: () => ({}) });
  t.throws(() => table.router({} as never), /first path segment must be literal/);
});
