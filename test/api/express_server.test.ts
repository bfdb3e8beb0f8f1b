import t from 'tap';
import { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createExpressServer } from '../../src/api/express_server.js';

t.test('requests are born with the app prototypes, so Express changes no shape, and behave as before', async (t) => {
  const app = express();
  const seen: Array<{ reqProto: boolean; resProto: boolean }> = [];
  app.post('/echo/:id', express.json(), (req, res) => {
    res.status(201).set('x-id', req.params.id).json({ id: req.params.id, body: req.body, q: req.query.q, ip: req.ip });
  });
  const server = createExpressServer(app);
  // the server's own 'request' listener runs before Express touches the objects
  server.prependListener('request', (req, res) => {
    seen.push({ reqProto: Object.getPrototypeOf(req) === app.request, resProto: Object.getPrototypeOf(res) === app.response });
    t.ok(req instanceof IncomingMessage);
    t.ok(res instanceof ServerResponse);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (let i = 0; i < 2; i++) {
    const r = await fetch(`${base}/echo/a%20b?q=${i}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":1}' });
    t.equal(r.status, 201);
    t.equal(r.headers.get('x-id'), 'a b');
    t.same(await r.json(), { id: 'a b', body: { x: 1 }, q: String(i), ip: '127.0.0.1' });
  }
  const missing = await fetch(`${base}/nowhere`);
  t.equal(missing.status, 404);
  await missing.text();
  t.same(seen, Array(3).fill({ reqProto: true, resProto: true }));
});
