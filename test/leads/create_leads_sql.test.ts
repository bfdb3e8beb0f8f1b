/**
 * create_leads (migrations 044-045) on one mixed batch, item by item as the rules say: a duplicate of an earlier lead and
 * of a lead of the same batch, the DND gate and a consent letting a number through, a call job, a lead without one,
 * and dials admitted or refused by the tenant's concurrency limit (then scheduled for retry).
 */
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const db = srv.services.db;

interface Out { o_i: number; o_duplicate: boolean; o_job_id: number | null; o_lead: Lead | string; o_call: { o_outcome: string; o_conversation_id: string } | string | null }
interface Lead { id: string; e164: string; call_id: string | null; call_status: string; call_reason: string | null; scheduled_for: string | null; conversation_id: string }
const json = <T>(v: T | string): T => (typeof v === 'string' ? JSON.parse(v) as T : v);
const run = async (items: object[], limit: number) => (await db.query<Out>(
  'SELECT o_i, o_duplicate, o_job_id, o_lead, o_call FROM create_leads($1::jsonb, $2, $3)', [JSON.stringify(items), 'test-instance', limit])).rows
  .map((r) => ({ i: r.o_i, duplicate: r.o_duplicate, job: r.o_job_id == null ? null : Number(r.o_job_id), lead: json(r.o_lead), call: r.o_call == null ? null : json(r.o_call) }));

let n = 0;
const hex = () => (++n).toString(16).padStart(24, '0');
const now = new Date();
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000).toISOString();
const retryAt = new Date(now.getTime() + 60_000).toISOString();

t.test('one batch: duplicates, DND and consent, jobs, and dials admitted or refused by the limit', async (t) => {
  const tenant = await srv.services.repos.tenants.createTenant('create_leads batch');
  const agent = (await srv.services.repos.agents.get('ten_dev', 'default'))!;
  await srv.services.repos.agents.put(tenant, 'default', { ...agent, disclosure_script: 'This is an AI agent of the batch tenant.' });
  const item = (i: number, e164: string, extra: { dial?: boolean; job?: 'pending' | 'claimed' | null; dup?: boolean } = {}) => {
    const id = `lead_${hex()}`, conv = `conv_${hex()}`;
    const dial = extra.dial ? { id: `call_${hex()}`, tenant, agent_key: 'default', agent: null, agent_id: null, to_number: e164, language: null,
      context: {}, tools: [], webhook_url: null, conversation_id: conv, new_conversation_id: `conv_${hex()}`, lead_id: id, lead_job_id: null,
      campaign_id: null, scenario: null } : null;
    return { i, id, tenant, name: `Lead ${i}`, e164, source: 'test', domain: 'realestate', timezone: null, conversation_id: conv,
      call_status: 'queued', call_reason: null, scheduled_for: null, created_by: 'tester', created_at: now.toISOString(), agent_id: 'default',
      fallback_text: 'fallback disclosure', meta: { kind: 'disclosure' }, job_status: extra.job === undefined ? (extra.dial ? 'claimed' : null) : extra.job,
      job_due: now.toISOString(), job_instance: 'test-instance', dnd_at: now.toISOString(), dup_since: extra.dup === false ? null : minutesAgo(60),
      dial, retry_at: retryAt };
  };
  // before the batch: an earlier lead of +913333333333, a DND number, and a DND number with a consent
  const earlier = { ...item(0, '+913333333333', { dup: false }), created_at: minutesAgo(5) };
  t.equal((await run([earlier], 10))[0].lead.call_status, 'queued');
  await db.query("INSERT INTO dnd_numbers (tenant_id, e164) VALUES ($1, '+911111111111'), ($1, '+912222222222')", [tenant]);
  await db.query("INSERT INTO consents (id, tenant_id, e164, method, consented_at, recorded_by) VALUES ('cons_batch', $1, '+912222222222', 'web_form', $2, 'tester')",
    [tenant, minutesAgo(30)]);

  const items = [
    item(0, '+913333333333', { dial: true }), // a duplicate of the earlier lead
    item(1, '+914444444444', { job: 'pending' }), // stored with a pending job
    item(2, '+914444444444', { dial: true }), // a duplicate of item 1, stored by this batch
    item(3, '+911111111111', { dial: true }), // DND: blocked, not dialed
    item(4, '+912222222222', { dial: true }), // DND with consent: dialed
    item(5, '+915555555555', { dial: true }), // over the limit of 1: scheduled for retry
    item(6, '+916666666666'), // no job, no dial
    item(7, '+914444444444', { dial: true, dup: false }), // no duplicate check: stored and dialed... but over the limit
  ];
  const out = await run(items, 1);
  const by = new Map(out.map((o) => [o.i, o]));
  t.same([...by.keys()].sort((a, b) => a - b), items.map((x) => x.i), 'every item answered once');

  t.same([by.get(0)!.duplicate, by.get(0)!.lead.id, by.get(0)!.call], [true, earlier.id, null], 'duplicate of the earlier lead');
  t.same([by.get(2)!.duplicate, by.get(2)!.lead.id], [true, items[1].id], "duplicate of the batch's own lead");
  t.same([by.get(1)!.duplicate, by.get(1)!.lead.call_status, typeof by.get(1)!.job], [false, 'queued', 'number'], 'stored with its job');
  t.same([by.get(3)!.lead.call_status, by.get(3)!.lead.call_reason, by.get(3)!.lead.call_id, by.get(3)!.job, by.get(3)!.call], ['blocked', 'dnd', null, null, null], 'DND blocks');
  const dialed = by.get(4)!;
  t.same([dialed.lead.call_status, dialed.lead.call_id, (dialed.call as { o_outcome: string }).o_outcome], ['dispatched', items[4].dial!.id, 'ok'], 'consent lets it through: dialed');
  t.equal((dialed.call as { o_conversation_id: string }).o_conversation_id, items[4].conversation_id, "the call joins the lead's conversation");
  for (const i of [5, 7]) {
    const refused = by.get(i)!;
    t.same([refused.lead.call_status, refused.lead.call_reason, refused.lead.call_id, (refused.call as { o_outcome: string }).o_outcome],
      ['scheduled', 'retry:concurrency_limited', null, 'concurrency_limited'], `item ${i}: refused by the limit, scheduled`);
    t.equal(new Date(refused.lead.scheduled_for!).toISOString(), retryAt);
    t.type(refused.job, 'number', 'with a retry job');
  }
  t.same([by.get(6)!.lead.call_status, by.get(6)!.job, by.get(6)!.call], ['queued', null, null], 'no job asked, none made');

  const stored = [1, 3, 4, 5, 6, 7].map((i) => items[i].id);
  const leads = await db.query<{ id: string }>('SELECT id FROM leads WHERE tenant_id = $1 ORDER BY id', [tenant]);
  t.same(leads.rows.map((r) => r.id), [earlier.id, ...stored].sort(), 'duplicates store nothing');
  const msgs = await db.query<{ conversation_id: string; text: string }>(
    'SELECT conversation_id, text FROM conversation_messages WHERE tenant_id = $1 ORDER BY conversation_id', [tenant]);
  t.equal(msgs.rows.length, 1 + stored.length, 'one disclosure per stored lead');
  t.ok(msgs.rows.every((m) => m.text === 'This is an AI agent of the batch tenant.'), "the tenant agent's disclosure");
  const convs = await db.query<{ id: string; call_id: string | null }>('SELECT id, call_id FROM conversations WHERE tenant_id = $1', [tenant]);
  const callOf = new Map(convs.rows.map((c) => [c.id, c.call_id]));
  t.equal(callOf.get(items[4].conversation_id), items[4].dial!.id, 'the dialed conversation names its call');
  for (const i of [3, 5, 7, 6, 1]) t.equal(callOf.get(items[i].conversation_id), null, `conversation ${i} names no call`);
  const jobs = await db.query<{ lead_id: string; status: string }>(
    'SELECT j.lead_id, j.status FROM lead_call_jobs j JOIN leads l ON l.id = j.lead_id WHERE l.tenant_id = $1 ORDER BY j.lead_id', [tenant]);
  t.same(jobs.rows, [items[1], items[5], items[7]].map((x) => ({ lead_id: x.id, status: 'pending' })).sort((a, b) => (a.lead_id < b.lead_id ? -1 : 1)),
    'pending jobs: the scheduled lead and the two retries');
  const calls = await db.query<{ id: string }>('SELECT id FROM calls WHERE tenant_id = $1', [tenant]);
  t.same(calls.rows.map((c) => c.id), [items[4].dial!.id], 'one call stored: the admitted dial');
});

t.test('an empty batch answers nothing', async (t) => {
  t.same(await run([], 1), []);
});
