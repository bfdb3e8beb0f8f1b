/**
 * Nothing is forgotten: every table of the schema is either a subject table (privacy registry: exported and
 * erased) or declared as holding no subject data, with a reason. A table added by any migration without an
 * entry fails here. Tables with a phone-like or call/lead/conversation column may never be declared exempt.
 */
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { NOT_SUBJECT_DATA, SUBJECT_TABLES } from '../../src/privacy/registry.js';
import { columnsOf, existingTables } from '../../src/privacy/sql.js';

const srv = await startTestServer({ env: { CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' } });
t.teardown(() => srv.close());
const db = srv.services.db;
const tables = await existingTables(db);
const registered = new Set(SUBJECT_TABLES.map((d) => d.table));
const PERSONAL = /^(phone|e164|to_number|from_number|number|msisdn|caller|callee|call_id|lead_id|conversation_id|recording_path|payload|text|body)$/;

t.ok(tables.has('calls') && tables.size > 5, 'the schema is migrated');

for (const table of [...tables].sort()) {
  t.test(table, async (t) => {
    const cols = await columnsOf(db, table);
    t.ok(registered.has(table) || table in NOT_SUBJECT_DATA, 'is in the privacy registry or declared free of subject data');
    t.notOk(registered.has(table) && table in NOT_SUBJECT_DATA, 'not both');
    if (table in NOT_SUBJECT_DATA) {
      const personal = [...cols].filter((c) => PERSONAL.test(c));
      t.same(personal, [], 'an exempt table has no phone-like or subject-linking column');
    }
  });
}

t.test('registry entries name real tables with a tenant or a parent link', async (t) => {
  for (const d of SUBJECT_TABLES) {
    if (!tables.has(d.table)) { t.comment(`${d.table}: not in this schema yet`); continue; }
    t.match(d.where, /:tenant|:calls|:convs|:leads/, `${d.table} is scoped to the subject's tenant`);
  }
});
