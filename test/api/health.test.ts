import t from 'tap';
import { startTestServer, api } from '../helpers/server.js';

const srv = await startTestServer();
t.teardown(() => srv.close());

t.test('health and ready answer', async (t) => {
  const h = await api(srv.baseUrl, 'GET', '/health');
  t.equal(h.status, 200);
  t.equal(h.body.status, 'ok');
  const r = await api(srv.baseUrl, 'GET', '/ready');
  t.equal(r.status, 200);
  t.same(r.body.checks, { database: true, bus: true });
});
