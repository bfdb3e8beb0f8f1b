/**
 * Export/erase completeness: two tenants x two subjects, every subject table seeded; erasing subject A of
 * tenant 1 leaves no row anywhere in the schema that mentions A's ids (or A's number together with tenant 1),
 * deletes A's recording file, and leaves subject B and tenant 2 (which also knows A's number) untouched.
 * The audit record keeps only the hash.
 */
import t from 'tap';
import { mkdir, mkdtemp, writeFile, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { RecordingStore } from '../../src/recordings/store.js';
import { startTestServer, api, login } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';
import { insertCall, insertConversation, insertEvent } from '../helpers/rows.js';
import { subjectHash } from '../../src/privacy/subject.js';
import { SUBJECT_TABLES } from '../../src/privacy/registry.js';
import { existingTables } from '../../src/privacy/sql.js';
import { newId } from '../../src/ids.js';

const srv = await startTestServer({ env: { CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' } });
t.teardown(() => srv.close());
const db = srv.services.db;
const admin = await login(srv.baseUrl);
const other = await makeTenant(srv, 'priv');
const T1 = 'ten_dev', T2 = other.tenantId;
const A = '+919800000001', B = '+919800000002';
const dir = await mkdtemp(join(tmpdir(), 'rec-'));
const store = new RecordingStore(srv.config.DATA_DIR);
const tables = await existingTables(db);
/** tables whose rows survive erasure by design (DND): checked on their own below */
const RETAINED = new Set(SUBJECT_TABLES.filter((d) => d.erase).map((d) => d.table));

/** Seeds one subject in one tenant across every subject table; returns the ids that identify it. */
async function seed(tenant: string, phone: string, tag: string) {
  const rec = join(dir, `${tag}.wav`);
  await writeFile(rec, 'RIFF');
  const cmp = newId('cmp');
  await db.query(`INSERT INTO campaigns (id, tenant_id, name, agent_id, window_start, window_end, timezone, max_concurrency, retry, created_by)
    VALUES ($1,$2,'c','default','09:00','21:00','UTC',1,'{"max_attempts":1,"backoff_minutes":1,"on":[]}','t')`, [cmp, tenant]);
  const call = await insertCall(db, { tenant, to: phone, status: 'completed', answered_at: new Date().toISOString(), recording_path: rec, campaign_id: cmp, transitions: ['dialing', 'completed'] });
  // a call cut off by a restart: the recording store's file exists, no recording_path names it
  const cutOff = await insertCall(db, { tenant, to: phone, status: 'failed', transitions: ['dialing', 'failed'] });
  const orphan = store.pathOf(cutOff);
  await mkdir(dirname(orphan), { recursive: true });
  await writeFile(orphan, 'RIFF');
  await insertEvent(db, tenant, call, 1, 'transcript', { speaker: 'caller', text: `hello from ${tag}` });
  await db.query('INSERT INTO call_event_counters (call_id, last_seq) VALUES ($1, 1)', [call]);
  const conv = await insertConversation(db, tenant, call, [{ text: `my number is ${phone}` }]);
  await db.query(`INSERT INTO campaign_contacts (id, campaign_id, tenant_id, phone, state, call_id) VALUES ($1,$2,$3,$4,'done',$5)`, [newId('cct'), cmp, tenant, phone, call]);
  const booking = `bk_${tag}`;
  await db.query(`INSERT INTO calendar_bookings (id, tenant_id, booking_id, call_id, phone, status) VALUES ($1,$2,$3,$4,$5,'booked')`, [newId('bkg'), tenant, booking, call, phone]);
  await db.query(`INSERT INTO inbound_webhook_events (tenant_id, source, event_id, type, subject_hash, effect) VALUES ($1,'crm',$2,'contact.opted_out',$3,'dnd_added')`, [tenant, `evt_${tag}`, subjectHash(phone)]);
  const markers = [call, conv, booking, `evt_${tag}`];
  if (tables.has('webhook_outbox')) {
    // state failed (given up), so the engine's delivery worker leaves it alone during the test
    const msg = `msg_${tag}_${newId('x')}`;
    await db.query(`INSERT INTO webhook_outbox (id, tenant_id, call_id, url, event_type, payload, state) VALUES ($1,$2,$3,'http://127.0.0.1:9/h','call.completed',$4::jsonb,'failed')`,
      [msg, tenant, call, JSON.stringify({ call_id: call, extracted_data: { customer_name: tag } })]);
    await db.query(`INSERT INTO webhook_attempts (webhook_id, tenant_id, call_id, attempt, status_code) VALUES ($1,$2,$3,1,500)`, [msg, tenant, call]);
    markers.push(msg);
  }
  if (tables.has('leads')) {
    // business A's tables: a lead whose call and conversation are separate from the campaign call above
    const lead = newId('lead');
    const leadCall = await insertCall(db, { tenant, to: phone, status: 'completed', lead_id: lead });
    const leadConv = await insertConversation(db, tenant, null, [{ text: `lead ${tag} conversation` }]);
    await db.query(`INSERT INTO leads (id, tenant_id, name, e164, source, domain, conversation_id, call_id, call_status, created_by)
      VALUES ($1,$2,$3,$4,'web','realestate',$5,$6,'dispatched','t')`, [lead, tenant, `Name ${tag}`, phone, leadConv, leadCall]);
    await db.query(`INSERT INTO lead_call_jobs (tenant_id, lead_id, due_at) VALUES ($1,$2,now())`, [tenant, lead]);
    await db.query(`INSERT INTO handoff_events (conversation_id, tenant_id, action, by_sub) VALUES ($1,$2,'accept','op')`, [leadConv, tenant]);
    const consent = newId('cons');
    await db.query(`INSERT INTO consents (id, tenant_id, e164, method, consented_at, recorded_by) VALUES ($1,$2,$3,'web_form',now(),'t')`, [consent, tenant, phone]);
    await db.query(`INSERT INTO dnd_numbers (tenant_id, e164, source) VALUES ($1,$2,'import')`, [tenant, phone]);
    markers.push(lead, leadCall, leadConv, consent);
  }
  return { call, conv, booking, rec, orphan, markers };
}

const a1 = await seed(T1, A, 'a1'), b1 = await seed(T1, B, 'b1'), a2 = await seed(T2, A, 'a2');

/** Rows in any table of the schema whose text mentions one of the markers (ids), or the number with the tenant id. */
async function mentions(markers: string[], phone: string, tenant: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of await existingTables(db)) {
    if (table === 'privacy_audit' || RETAINED.has(table)) continue; // checked separately
    const r = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} x WHERE x::text LIKE ANY($1::text[]) OR (x::text LIKE $2 AND x::text LIKE $3)`,
      [markers.map((m) => `%${m}%`), `%${phone}%`, `%${tenant}%`]);
    if (r.rows[0].n) out[table] = r.rows[0].n;
  }
  return out;
}

t.test('every registry table is seeded for subject A (the test can fail)', async (t) => {
  const before = await mentions(a1.markers, A, T1);
  for (const d of SUBJECT_TABLES) {
    if (!tables.has(d.table)) { t.comment(`${d.table}: not in this schema yet`); continue; }
    if (RETAINED.has(d.table)) continue;
    t.ok(before[d.table] > 0, `${d.table} holds subject A rows before erasure`);
  }
});

t.test('export returns every table with the subject rows, tenant-scoped', async (t) => {
  const r = await api(srv.baseUrl, 'POST', '/privacy/export', { token: admin, body: { e164: A } });
  t.equal(r.status, 200);
  t.equal(r.body.subject, subjectHash(A));
  const withLeads = tables.has('leads');
  type Row = { id: string; tenant_id: string; to_number: string };
  const calls: Row[] = r.body.tables.calls;
  t.equal(calls.length, withLeads ? 3 : 2, 'the campaign call, the cut-off call (and the lead call)');
  t.ok(calls.some((c) => c.id === a1.call));
  t.ok(calls.every((c) => c.tenant_id === T1 && c.to_number === A), 'only tenant 1 calls of A');
  t.equal(r.body.tables.conversation_messages.length, withLeads ? 2 : 1);
  t.equal(r.body.tables.call_events[0].payload.text, 'hello from a1');
  if (withLeads) {
    t.equal(r.body.tables.leads.length, 1);
    t.equal(r.body.tables.dnd_numbers.length, 1, 'DND entries are exported too');
    t.equal(r.body.tables.consents.length, 1);
  }
  const bySubject = await api(srv.baseUrl, 'POST', '/privacy/export', { token: admin, body: { subject: subjectHash(A) } });
  t.same(bySubject.body.tables.calls.map((c: Row) => c.id).sort(), calls.map((c) => c.id).sort(), 'subject hash finds the same rows');
  const bad = await api(srv.baseUrl, 'POST', '/privacy/export', { token: admin, body: { e164: '12345' } });
  t.equal(bad.status, 400);
  t.equal(bad.body.code, 'validation_failed');
  const both = await api(srv.baseUrl, 'POST', '/privacy/export', { token: admin, body: { e164: A, subject: subjectHash(A) } });
  t.equal(both.status, 400, 'exactly one of e164 or subject');
  const op = await api(srv.baseUrl, 'POST', '/privacy/export', { token: other.operatorToken, body: { e164: A } });
  t.equal(op.status, 403);
});

t.test('erase removes subject A of tenant 1 everywhere, and nothing else', async (t) => {
  const bBefore = await mentions(b1.markers, B, T1);
  const a2Before = await mentions(a2.markers, A, T2);
  const r = await api(srv.baseUrl, 'POST', '/privacy/erase', { token: admin, body: { e164: A } });
  t.equal(r.status, 200);
  t.equal(r.body.deleted.recording_files, 1);
  t.equal(r.body.deleted.conversation_messages, tables.has('leads') ? 2 : 1);
  t.same(await mentions(a1.markers, A, T1), {}, 'no row anywhere mentions subject A of tenant 1');
  await t.rejects(access(a1.rec), 'recording file deleted');
  await t.rejects(access(a1.orphan), 'the unreferenced recording of a cut-off call deleted too');
  await access(b1.rec);
  await access(a2.rec);
  await access(b1.orphan);
  await access(a2.orphan);
  t.same(await mentions(b1.markers, B, T1), bBefore, 'subject B untouched');
  t.same(await mentions(a2.markers, A, T2), a2Before, 'tenant 2 (same number) untouched');
  if (tables.has('dnd_numbers')) {
    t.equal(r.body.retained.dnd_numbers.rows, 1, 'the DND entry is reported as retained');
    t.match(r.body.retained.dnd_numbers.reason, /opt-out/);
    const dnd = await db.query('SELECT 1 FROM dnd_numbers WHERE tenant_id = $1 AND e164 = $2', [T1, A]);
    t.equal(dnd.rows.length, 1, 'and it still blocks the number');
    t.equal(r.body.deleted.leads, 1);
    t.equal(r.body.deleted.consents, 1);
    t.equal(r.body.deleted.calls, 3, 'the campaign call, the cut-off call and the lead call');
  }
  const again = await api(srv.baseUrl, 'POST', '/privacy/erase', { token: admin, body: { subject: subjectHash(A) } });
  t.equal(again.body.deleted.calls, 0, 'erasing twice finds nothing');
});

t.test('the audit keeps only the hash, counts, actor and time', async (t) => {
  const r = await api(srv.baseUrl, 'GET', '/privacy/audit', { token: admin });
  t.equal(r.status, 200);
  const erases = r.body.data.filter((x: { action: string }) => x.action === 'erase');
  t.equal(erases.length, 2, 'both erasures audited');
  const erase = erases.find((x: { counts: { deleted: { calls: number } } }) => x.counts.deleted.calls > 0);
  t.equal(erase.subject_hash, subjectHash(A));
  t.equal(erase.counts.deleted.calls, tables.has('leads') ? 3 : 2);
  t.ok(erase.actor && erase.at);
  const raw = await db.query<{ x: string }>('SELECT x::text AS x FROM privacy_audit x');
  for (const row of raw.rows) t.notMatch(row.x, A.slice(1), 'no audit row holds the number');
  const t2 = await api(srv.baseUrl, 'GET', '/privacy/audit', { token: other.adminToken });
  t.same(t2.body.data, [], 'tenant 2 sees none of tenant 1 audit');
});

t.test('a subject with a live call no instance drives: the call is ended in storage (erased), then erased', async (t) => {
  const C = '+919800000003';
  const live = await insertCall(db, { tenant: T1, to: C, status: 'in_progress' });
  const r = await api(srv.baseUrl, 'POST', '/privacy/erase', { token: admin, body: { e164: C } });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.same(r.body.ended_calls, [live]);
  t.equal(r.body.deleted.calls, 1);
  t.equal((await db.query('SELECT 1 FROM calls WHERE id = $1', [live])).rows.length, 0);
  const audit = (await api(srv.baseUrl, 'GET', '/privacy/audit', { token: admin })).body.data[0];
  t.match(audit, { action: 'erase', subject_hash: subjectHash(C), counts: { ended_calls: 1 } });
});
