/**
 * RECORDINGS_DIR: recordings are written to the folder named, and (PostgreSQL and Redis) a second instance given the
 * same folder, as a shared volume would be, serves the link of a call the first one ran; an erasure through it
 * deletes the file.
 */
import t from 'tap';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_KEY, api, login, startTestServer, waitForCallEnd } from '../helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'vcs-shared-recordings-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const env = { SIM_TIME_SCALE: '10', RECORDINGS_DIR: dir, CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' };
const a = await startTestServer({ env });
t.teardown(() => a.close());
const auth = { headers: { 'x-api-key': API_KEY } };

let d: { body: { id: string } };
let call: { recording_url: string };
t.before(async () => {
  d = await api(a.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+14155550123', agent_id: 'default', context: { customer_name: 'Lee' } } });
  if (d.body.id === undefined) throw new Error(`dispatch: ${JSON.stringify(d.body)}`);
  call = await waitForCallEnd(a.baseUrl, d.body.id, auth.headers);
});

t.test('the recording is written to RECORDINGS_DIR', async (t) => {
  t.same(readdirSync(dir), [`${d.body.id}.wav`]);
  const wav = await fetch(call.recording_url);
  t.equal(wav.status, 200);
  t.ok((await wav.arrayBuffer()).byteLength > 44, 'audio after the header');
});

const shared = process.env.DATABASE_URL && process.env.REDIS_URL;
t.test('another instance on the same folder serves the link and erases the file', { skip: shared ? false : 'needs DATABASE_URL and REDIS_URL (two instances)' }, async (t) => {
  const b = await startTestServer({ env, databaseUrl: a.databaseUrl });
  t.teardown(() => b.close());
  const viaB = String(call.recording_url).replace(a.baseUrl, b.baseUrl);
  t.not(viaB, call.recording_url, 'the link rewritten to the other instance');
  t.equal((await fetch(viaB)).status, 200, 'the other instance finds the file');
  const token = await login(b.baseUrl);
  const e = await api(b.baseUrl, 'POST', '/privacy/erase', { token, body: { e164: '+14155550123' } });
  t.equal(e.status, 200, JSON.stringify(e.body));
  t.notOk(existsSync(join(dir, `${d.body.id}.wav`)), 'the file is gone');
});
