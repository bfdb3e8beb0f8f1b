/**
 * A webhook's state and its attempts in the delivery log come from one snapshot: an attempt recorded while the log
 * is being read shows either with the state it set or not at all. (Read in two statements, PostgreSQL showed the
 * attempt next to the state of before it, and a client polling for "delivered" saw its 200 still "pending".)
 */
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_KEY, api, startTestServer } from '../helpers/server.js';
import { WebhookOutbox } from '../../src/webhooks/outbox.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import type { Db } from '../../src/db/db.js';

const receiver = createServer((_q, res) => res.writeHead(503).end());
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
t.teardown(() => new Promise<void>((r) => receiver.close(() => r())));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

// the first attempt fails and its retry is an hour away, so nothing but this test writes to the row afterwards
const srv = await startTestServer({ env: { WEBHOOK_RETRY_BASE_MS: '3600000', WEBHOOK_POLL_MS: '50' } });
t.teardown(() => srv.close());
const key = { 'x-api-key': API_KEY };

t.test('an attempt committed during the read is seen with its state or not at all', async (t) => {
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { headers: key, body: { to: '+15005550001', agent_id: 'default', webhook_url: hookUrl } });
  let first: any;
  for (let i = 0; i < 600 && !first; i++) {
    const log = await api(srv.baseUrl, 'GET', `/calls/${d.body.id}/webhooks`, { headers: key });
    if (log.body.data[0]?.log.length) first = log.body.data[0];
    else await new Promise((r) => setTimeout(r, 25));
  }
  t.equal(first?.state, 'pending', 'the first attempt failed and is retried later');

  const db = srv.services.db;
  const writer = new WebhookOutbox(db);
  const row = { id: first.webhook_id, tenant_id: DEV_TENANT_ID, call_id: d.body.id, url: hookUrl, event_type: first.event, payload: {}, attempts: 1 };
  // a reader whose first statement is followed, before the next one can run, by a committed second attempt
  let injected = false;
  const interleaved: Db = Object.create(db, {
    query: {
      value: async (sql: string, params?: unknown[]) => {
        const r = await db.query(sql, params);
        if (!injected) { injected = true; await writer.recordAttempt(row, { statusCode: 200, error: null, durationMs: 5 }, { state: 'delivered' }); }
        return r;
      },
    },
  });
  const [hook] = await new WebhookOutbox(interleaved).log(DEV_TENANT_ID, d.body.id);
  t.ok(injected, 'the second attempt was committed during the read');
  t.same({ state: hook.state, attempts: hook.attempts, logged: hook.log.length }, { state: 'pending', attempts: 1, logged: 1 },
    'the snapshot from before the second attempt, whole');

  const [after] = await writer.log(DEV_TENANT_ID, d.body.id);
  t.same({ state: after.state, attempts: after.attempts, logged: after.log.map((a) => a.status_code) }, { state: 'delivered', attempts: 2, logged: [503, 200] });
  t.match(after.log[1].at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'attempt times stay ISO 8601 in UTC');
});
