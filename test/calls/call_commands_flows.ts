/**
 * Hang-up, transfer and erasure of a live call, sent to `other` while `owner` runs the call (owner and other are
 * the same server on the single-instance default). Each flow checks the call stopped on its owner (its runner
 * let go, its live stream closed, its recording finished), the stored end, and exactly one call.completed.
 */
import type { Test } from 'tap';
import { stat } from 'node:fs/promises';
import { DEV_TENANT_ID } from '../../src/services.js';
import { api, API_KEY, login, type startTestServer } from '../helpers/server.js';
import { connect, wsUrl } from '../stream/helpers.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
export const HOOK = 'http://127.0.0.1:9/hook'; // loopback discard port: queued, never delivered anywhere
export const key = { headers: { 'x-api-key': API_KEY } };

/** Polls `probe` until it returns something truthy (every 25 ms, at most `ms`). */
export async function until<T>(what: string, probe: () => Promise<T> | T, ms = 90_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A call dispatched on `owner` whose media session runs there (the simulated callee is talking). */
export async function liveCallOn(owner: Server, to = '+15005550009'): Promise<string> {
  const call = await owner.services.calls.dispatch(DEV_TENANT_ID, { to, agent_id: 'default', webhook_url: HOOK });
  await until(`call ${call.id} in session`, () => owner.services.callEngine.runner.live.get(call.id)?.session);
  return call.id;
}

export async function completedHooks(s: Server, callId: string): Promise<number> {
  return (await s.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_outbox WHERE call_id = $1 AND event_type = 'call.completed'`, [callId])).rows[0].n;
}

/** Items stored after the call's final status item (a call still talking after its end would add some). */
export async function itemsAfterEnd(s: Server, callId: string): Promise<number> {
  return (await s.services.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM call_events WHERE call_id = $1 AND seq > (SELECT min(seq) FROM call_events WHERE call_id = $1 AND type = 'status'
       AND payload->>'status' IN ('completed', 'canceled', 'failed'))`, [callId])).rows[0].n;
}

/** The checks every flow ends with: stopped on the owner, recording closed and no longer growing, one webhook. */
async function stoppedOnOwner(t: Test, owner: Server, callId: string, listener: Awaited<ReturnType<typeof connect>>) {
  await until('the owner lets the call go', () => !owner.services.callEngine.runner.live.has(callId));
  const code = await new Promise<number>((r) => (listener.ws!.readyState === listener.ws!.CLOSED ? r(-1) : listener.ws!.once('close', (c) => r(c))));
  t.ok(code === 1000 || code === -1, 'its live stream ended');
  t.equal(await completedHooks(owner, callId), 1, 'exactly one call.completed');
  t.equal(await itemsAfterEnd(owner, callId), 0, 'nothing stored after the final status');
  const row = (await owner.services.db.query<{ recording_path: string | null }>('SELECT recording_path FROM calls WHERE id = $1', [callId])).rows[0];
  if (row?.recording_path) {
    const size = (await stat(row.recording_path)).size;
    // one more round of the owner's work: a session still writing would have grown the file by now
    await owner.services.db.query('SELECT 1');
    await new Promise((r) => setImmediate(r));
    t.equal((await stat(row.recording_path)).size, size, 'the recording is closed');
  }
}

export function commandFlows(t: Test, owner: Server, other: Server) {
  let jwt = '';
  const listen = async (callId: string) => {
    jwt ||= await login(other.baseUrl);
    const l = await connect(wsUrl(other.baseUrl, `/calls/${callId}/stream`), { authorization: `Bearer ${jwt}` });
    if (!l.ws) throw new Error(`stream refused: ${l.status}`);
    return l;
  };

  t.test('hang-up sent to the other instance stops the call on its owner', async (t) => {
    const id = await liveCallOn(owner);
    const l = await listen(id);
    const r = await api(other.baseUrl, 'POST', `/calls/${id}/hangup`, key);
    t.equal(r.status, 200, JSON.stringify(r.body));
    t.match(r.body, { status: 'completed', ended_reason: 'hangup_api' }, "answered with the owner's result");
    await stoppedOnOwner(t, owner, id, l);
    t.equal((await api(other.baseUrl, 'POST', `/calls/${id}/hangup`, key)).status, 409, 'a second hang-up: already ended');
  });

  t.test('transfer sent to the other instance bridges the call on its owner', async (t) => {
    const id = await liveCallOn(owner);
    const l = await listen(id);
    const r = await api(other.baseUrl, 'POST', `/calls/${id}/transfer`, { ...key, body: { target: '+14155550199' } });
    t.equal(r.status, 200, JSON.stringify(r.body));
    t.equal(r.body.live, true, 'the owner transferred it');
    const end = await until('the transferred call ends', async () => {
      const c = (await api(other.baseUrl, 'GET', `/calls/${id}`, key)).body;
      return ['completed', 'failed'].includes(c.status) ? c : undefined;
    });
    t.equal(end.ended_reason, 'transferred');
    await stoppedOnOwner(t, owner, id, l);
  });

  t.test('erasure sent to the other instance ends the call on its owner before its rows go', async (t) => {
    const to = '+14155550177';
    const id = await liveCallOn(owner, to);
    const l = await listen(id);
    const admin = await login(other.baseUrl);
    const r = await api(other.baseUrl, 'POST', '/privacy/erase', { token: admin, body: { e164: to } });
    t.equal(r.status, 200, JSON.stringify(r.body));
    t.same(r.body.ended_calls, [id]);
    t.equal(r.body.deleted.calls, 1);
    await until('the owner lets the call go', () => !owner.services.callEngine.runner.live.has(id));
    await new Promise<number>((res) => (l.ws!.readyState === l.ws!.CLOSED ? res(0) : l.ws!.once('close', res)));
    for (const table of ['calls', 'call_events', 'webhook_outbox']) {
      const n = await owner.services.db.query(`SELECT 1 FROM ${table} WHERE ${table === 'calls' ? 'id' : 'call_id'} = $1`, [id]);
      t.equal(n.rows.length, 0, `${table}: nothing left, nothing written after the erasure`);
    }
    const path = owner.services.callEngine.recordingPathOf(id);
    await t.rejects(stat(path), "the recording file on the owner's disk is gone");
  });
}
