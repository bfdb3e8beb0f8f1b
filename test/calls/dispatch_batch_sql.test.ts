/**
 * dispatch_calls (migration 048) answers one mixed batch item by item as the rules say: agent resolution, the
 * per-tenant limit counted from the calls active before the batch plus the batch's own earlier admissions, the
 * conversation (existing, caller-linked or new), and rows only for admitted calls.
 */
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const db = srv.services.db;

interface Answer { o_i: number; o_outcome: string; o_active: number; o_agent: { role: string; voice?: string } | null; o_language: string | null; o_conversation_id: string | null; o_created_at: unknown }
const run = async (items: object[], limit: number) => (await db.query<Answer>(
  'SELECT * FROM dispatch_calls($1::jsonb, $2, $3)', [JSON.stringify(items), 'test-instance', limit])).rows;

let n = 0;
const item = (i: number, tenant: string, extra: object = {}) => {
  n += 1;
  const hex = n.toString(16).padStart(24, '0');
  return { i, id: `call_${hex}`, tenant, agent_key: 'default', agent: null, agent_id: null, to_number: '+14155550123', language: null,
    context: {}, tools: [], webhook_url: null, conversation_id: null, new_conversation_id: `conv_${hex}`, lead_id: null,
    lead_job_id: null, campaign_id: null, scenario: null, ...extra };
};

t.test('one batch: agents, the limit counted across the batch, conversations, rows for admitted calls only', async (t) => {
  const a = await srv.services.repos.tenants.createTenant('SQL batch A');
  const b = await srv.services.repos.tenants.createTenant('SQL batch B (no stored agent)');
  await srv.services.repos.agents.put(a, 'default', (await srv.services.repos.agents.get('ten_dev', 'default'))!);
  const before = await run([item(0, a)], 3);
  t.equal(before[0].o_outcome, 'ok', 'A has one active call before the batch');
  await db.query("INSERT INTO conversations (id, tenant_id) VALUES ('conv_existing_a', $1)", [a]);
  const inline = { role: 'sales', voice: 'asha', language: 'en-IN', interruption_sensitivity: 0.5, turn_detection_timeout_ms: 700 };
  const linked = item(7, b, { agent: inline, conversation_id: 'conv_linked_b', conversation_linked: true });
  await db.query('INSERT INTO conversations (id, tenant_id, call_id) VALUES ($1, $2, $3)', ['conv_linked_b', b, linked.id]);
  const items = [
    item(0, a, { agent_key: 'nope' }),
    item(1, a, { conversation_id: 'conv_existing_a' }),
    item(2, b, { agent: inline, language: 'hi-IN' }),
    item(3, a),
    item(4, a),
    item(5, a),
    item(6, b),
    linked,
    item(8, b, { agent: inline, conversation_id: 'conv_missing' }),
  ];
  const answers = await run(items, 3);
  const by = new Map(answers.map((r) => [r.o_i, r]));
  const order = (x: number, y: number) => (items[x].tenant === items[y].tenant ? x - y : items[x].tenant < items[y].tenant ? -1 : 1);
  t.same(answers.map((r) => r.o_i), items.map((_, i) => i).sort(order), 'answered in (tenant, item) order');
  const outcome = (i: number) => [by.get(i)!.o_outcome, Number(by.get(i)!.o_active)];
  t.same(outcome(0), ['agent_not_found', 0], 'unknown agent: refused, counts for nothing');
  t.same(outcome(1), ['ok', 1], 'A: one active before the batch');
  t.same(outcome(3), ['ok', 2], "A: counts the batch's earlier admission");
  t.same(outcome(4), ['concurrency_limited', 3], 'A: the limit of 3 is reached');
  t.same(outcome(5), ['concurrency_limited', 3]);
  t.same(outcome(2), ['ok', 0], 'B: inline settings need no stored agent');
  t.same(outcome(6), ['agent_not_found', 0], 'B: no stored agent');
  t.same(outcome(7), ['ok', 1]);
  t.same(outcome(8), ['ok', 2]);
  t.equal(by.get(2)!.o_language, 'hi-IN', 'the item language wins');
  t.equal(by.get(7)!.o_language, 'en-IN', "else the agent's");
  t.equal(by.get(1)!.o_agent!.role, (await srv.services.repos.agents.get(a, 'default'))!.role, 'stored agent snapshot');
  t.same(by.get(2)!.o_agent, inline);
  t.equal(by.get(1)!.o_conversation_id, 'conv_existing_a', 'an existing conversation is used');
  t.equal(by.get(2)!.o_conversation_id, items[2].new_conversation_id, 'else a new one');
  t.equal(by.get(7)!.o_conversation_id, 'conv_linked_b', "the caller's linked conversation");
  t.equal(by.get(8)!.o_conversation_id, items[8].new_conversation_id, 'a named conversation that does not exist: a new one');
  for (const i of [0, 4, 5, 6]) t.same([by.get(i)!.o_agent, by.get(i)!.o_conversation_id, by.get(i)!.o_created_at], [null, null, null], `refusal ${i} carries no call`);

  const admitted = [1, 2, 3, 7, 8].map((i) => items[i].id);
  const refused = [0, 4, 5, 6].map((i) => items[i].id);
  const count = async (table: string, ids: string[]) => Number((await db.query<{ n: number }>(
    `SELECT count(*) AS n FROM ${table} WHERE call_id = ANY($1::text[])`, [ids])).rows[0].n);
  const calls = await db.query<{ id: string; status: string; conversation_id: string; language: string; instance_id: string }>(
    'SELECT id, status, conversation_id, language, instance_id FROM calls WHERE id = ANY($1::text[]) ORDER BY id', [[...admitted, ...refused]]);
  t.same(calls.rows.map((c) => c.id), [...admitted].sort(), 'only admitted calls are stored');
  t.ok(calls.rows.every((c) => c.status === 'queued' && c.instance_id === 'test-instance'));
  t.same(Object.fromEntries(calls.rows.map((c) => [c.id, c.conversation_id])),
    Object.fromEntries([1, 2, 3, 7, 8].map((i) => [items[i].id, by.get(i)!.o_conversation_id])), 'each call names its conversation');
  t.equal(await count('call_lifecycle', admitted), 5, 'one first transition each');
  t.equal(await count('call_events', admitted), 5, 'one queued item each');
  t.equal(await count('call_event_counters', admitted), 5);
  t.equal(await count('call_lifecycle', refused) + await count('call_events', refused) + await count('call_event_counters', refused), 0);
  const convs = await db.query<{ id: string; call_id: string }>('SELECT id, call_id FROM conversations WHERE id = ANY($1::text[]) ORDER BY id',
    [['conv_existing_a', 'conv_linked_b', 'conv_missing', ...items.map((x) => x.new_conversation_id)]]);
  t.same(convs.rows, [
    { id: 'conv_existing_a', call_id: items[1].id },
    { id: 'conv_linked_b', call_id: linked.id },
    { id: items[2].new_conversation_id, call_id: items[2].id },
    { id: items[3].new_conversation_id, call_id: items[3].id },
    { id: items[8].new_conversation_id, call_id: items[8].id },
  ].sort((x, y) => (x.id < y.id ? -1 : 1)), 'conversations: linked to their calls; none made for refusals');
});

t.test('an empty batch answers nothing', async (t) => {
  t.same(await run([], 3), []);
});

t.test('do-not-disturb in the batch: a blocked item is refused and takes no concurrency slot; a transactional mark is stored and audited', async (t) => {
  const c = await srv.services.repos.tenants.createTenant('SQL batch C (DND)');
  await srv.services.repos.agents.put(c, 'default', (await srv.services.repos.agents.get('ten_dev', 'default'))!);
  await db.query("INSERT INTO dnd_numbers (tenant_id, e164, source) VALUES ($1, '+919812349999', 'test')", [c]);
  const at = new Date().toISOString();
  const mark = { transactional: true, reason: 'OTP callback', marked_by: 'usr_x', marked_by_kind: 'user', marked_at: at, gates_lifted: ['dnd', 'calling_hours'], audit_id: 'caud_000000000000000000000001' };
  const items = [
    item(0, c, { to_number: '+919812349999', dnd_at: at }),
    item(1, c, { dnd_at: at }),
    item(2, c, { to_number: '+919812349999' }), // gated before (a lead's, a campaign's): no dnd_at
    item(3, c, { to_number: '+919812349999', compliance: mark, audit_id: mark.audit_id }),
  ];
  const by = new Map((await run(items, 2)).map((r) => [r.o_i, [r.o_outcome, Number(r.o_active)]]));
  t.same(by.get(0), ['dnd_blocked', 0], 'refused, counts for nothing');
  t.same(by.get(1), ['ok', 0], 'the blocked item took no slot');
  t.same(by.get(2), ['ok', 1]);
  t.same(by.get(3), ['concurrency_limited', 2], 'the limit of 2 counted only admitted items');
  const stored = await db.query<{ id: string }>('SELECT id FROM calls WHERE tenant_id = $1 ORDER BY id', [c]);
  t.same(stored.rows.map((r) => r.id), [items[1].id, items[2].id]);
  const marked = await run([item(0, c, { to_number: '+919812349999', compliance: mark, audit_id: mark.audit_id })], 10);
  t.equal(marked[0].o_outcome, 'ok');
  const audit = await db.query<{ call_id: string; reason: string; gates_lifted: string[] }>('SELECT call_id, reason, gates_lifted FROM compliance_audit WHERE tenant_id = $1', [c]);
  t.same(audit.rows, [{ call_id: `call_${n.toString(16).padStart(24, '0')}`, reason: 'OTP callback', gates_lifted: ['dnd', 'calling_hours'] }]);
});
