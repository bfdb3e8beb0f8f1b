import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_KEY, login, startTestServer } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { ConversationRepo } from '../../src/repos/conversations.js';
import { VoiceClient, VoiceApiError, type LiveItem } from '../../src/client/index.js';
import { insertCall, otherTenant } from './helpers.js';
import { freePort } from './redis_server.js';

// The client library against a running service. Storage survives a restart of the service (PostgreSQL when
// DATABASE_URL is set, else PGlite in a temp directory) so the client can reconnect and resume by seq.
const dataDir = mkdtempSync(join(tmpdir(), 'stream-client-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
const port = await freePort();
const start = (databaseUrl?: string) => startTestServer({ databaseUrl, env: { PORT: String(port), DATA_DIR: dataDir } });
let srv = await start();
const databaseUrl = srv.databaseUrl;
t.teardown(() => srv.close());
const jwt = await login(srv.baseUrl);

function record(l: ReturnType<VoiceClient['listen']>) {
  const items: LiveItem[] = [];
  for (const type of ['transcript', 'entity', 'escalation', 'status', 'transfer'] as const) l.on(type, (m: LiveItem) => items.push(m));
  const ended = new Promise<{ reason: string; lastSeq: number }>((r) => l.once('end', r));
  return { items, ended };
}
async function until(pred: () => boolean, what: string, ms = 15_000) {
  const end = Date.now() + ms;
  while (!pred()) { if (Date.now() > end) throw new Error(`timed out: ${what}`); await new Promise((r) => setTimeout(r, 20)); }
}
const say = (callId: string, text: string) =>
  srv.services.callEvents.publish(DEV_TENANT_ID, callId, { type: 'transcript', speaker: 'caller', text, latencyMs: 300, partial: false });

t.test('typed events, reconnect with backoff across a service restart, resume by seq, end', async (t) => {
  const client = new VoiceClient({ baseUrl: srv.baseUrl, token: jwt });
  const callId = await insertCall(srv.services, DEV_TENANT_ID);
  await say(callId, 'one');
  const live = client.listen(callId, { initialDelayMs: 50, maxDelayMs: 200 });
  const { items, ended } = record(live);
  const reconnects: number[] = [];
  live.on('reconnecting', ({ attempt }) => reconnects.push(attempt));
  await srv.services.callEvents.publish(DEV_TENANT_ID, callId, { type: 'entity', key: 'budget', value: '1.2 Cr' });
  await until(() => items.length === 2, 'first two items');
  t.match(items[0], { type: 'transcript', text: 'one', seq: 1 });
  t.match(items[1], { type: 'entity', key: 'budget', value: '1.2 Cr', seq: 2 });

  await srv.close();
  await until(() => reconnects.length >= 2, 'client retrying while the service is down');
  srv = await start(databaseUrl);
  await say(callId, 'two');
  await say(callId, 'three');
  await until(() => items.length === 4, 'resumed items');
  t.same(items.map((m) => m.seq), [1, 2, 3, 4], 'resumed after seq 2: no gap, no duplicate');
  t.ok(live.connected);
  await srv.services.callEvents.publish(DEV_TENANT_ID, callId, { type: 'status', status: 'completed', ended_reason: 'hangup' });
  const end = await ended;
  t.same(end, { reason: 'call_ended', lastSeq: 5 });
  t.match(items[4], { type: 'status', status: 'completed' });
});

t.test('a listener whose connection goes silent reconnects by itself (idle timeout) and resumes', async (t) => {
  const client = new VoiceClient({ baseUrl: srv.baseUrl, apiKey: API_KEY });
  const callId = await insertCall(srv.services, DEV_TENANT_ID);
  const live = client.listen(callId, { idleTimeoutMs: 300, initialDelayMs: 20 });
  const { items } = record(live);
  const opens: number[] = [];
  live.on('open', ({ afterSeq }) => opens.push(afterSeq));
  await until(() => opens.length === 1, 'open');
  await say(callId, 'a');
  await until(() => items.length === 1, 'first');
  // Nothing from the service for 300 ms (its pings are 25 s apart): the client presumes the link dead.
  await until(() => opens.length === 2, 'reconnected after idle');
  t.same(opens, [0, 1], 'second connection resumed after seq 1');
  await say(callId, 'b');
  await until(() => items.length === 2, 'second');
  t.same(items.map((m) => m.seq), [1, 2]);
  live.close();
});

t.test('transfer() on an escalation, over the socket and without one', async (t) => {
  const conversations = new ConversationRepo(srv.services.db);
  const conv = await conversations.create({ tenantId: DEV_TENANT_ID });
  const callId = await insertCall(srv.services, DEV_TENANT_ID, { conversationId: conv.id });
  const client = new VoiceClient({ baseUrl: srv.baseUrl, token: jwt });
  const live = client.listen(callId);
  const { items } = record(live);
  const escalated = new Promise<void>((resolve) => live.once('escalation', async (e) => {
    t.equal(e.reason, 'wants a human');
    await live.transfer('+14155550199');
    resolve();
  }));
  await srv.services.callEvents.publish(DEV_TENANT_ID, callId, { type: 'escalation', reason: 'wants a human' });
  await escalated;
  t.match(items.at(-1), { type: 'transfer', target: '+14155550199' }, 'resolved once the transfer item arrived');
  t.equal((await conversations.get(DEV_TENANT_ID, conv.id))?.state, 'handoff');
  await t.rejects(live.transfer('12345'), VoiceApiError, 'bad target rejected by the service');
  live.close();
  await t.resolves(client.transfer(callId), 'REST transfer');
});

t.test('a foreign call or a bad token ends the listener as refused, without retrying', async (t) => {
  const other = await otherTenant(srv.services);
  const theirs = await insertCall(srv.services, other.tenantId);
  for (const [client, status] of [[new VoiceClient({ baseUrl: srv.baseUrl, token: jwt }), 404], [new VoiceClient({ baseUrl: srv.baseUrl, apiKey: 'wrong-key-wrong-key' }), 401]] as const) {
    const live = client.listen(theirs);
    const errors: VoiceApiError[] = [];
    live.on('error', (e) => errors.push(e as VoiceApiError));
    const end = await new Promise((r) => live.once('end', r));
    t.same(end, { reason: 'refused', lastSeq: 0 });
    t.equal(errors[0]?.status, status);
  }
  await t.rejects(new VoiceClient({ baseUrl: srv.baseUrl, token: jwt }).getCall('call_000000000000000000000000'), { name: 'VoiceApiError' });
  t.throws(() => new VoiceClient({ baseUrl: srv.baseUrl }), /token/);
});
