/**
 * Start-up schema: migrations run once; stored functions are applied from their one current text and again only
 * when that text changes; whole files run as scripts, so a dollar-quoted body may put its semicolons anywhere.
 */
import t from 'tap';
import { openDb } from '../../src/db/db.js';
import { migrate } from '../../src/db/migrate.js';
import { freshSchemaUrl } from '../helpers/server.js';

const db = await openDb({ databaseUrl: process.env.DATABASE_URL ? await freshSchemaUrl(process.env.DATABASE_URL) : undefined, dataDir: 'memory' });
t.teardown(() => db.close());

t.test('a fresh database gets every migration and every function', async (t) => {
  const first = await migrate(db);
  t.ok(first.migrations.length > 5);
  t.same(first.functions, ['create_leads.sql', 'dispatch_call.sql', 'dispatch_calls.sql', 'dnd_blocks.sql']);
  const fns = await db.query<{ proname: string }>(`SELECT proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = current_schema() AND proname IN ('create_leads', 'dispatch_call', 'dispatch_calls', 'dnd_blocks') ORDER BY proname`);
  t.same(fns.rows.map((r) => r.proname), ['create_leads', 'dispatch_call', 'dispatch_calls', 'dnd_blocks'], 'one of each signature');
});

t.test('a second start applies nothing', async (t) => {
  t.same(await migrate(db), { migrations: [], functions: [] });
});

t.test('a function whose stored text differs is applied again', async (t) => {
  await db.query(`UPDATE schema_functions SET sha256 = 'old' WHERE name = 'dispatch_calls.sql'`);
  await db.exec(`CREATE OR REPLACE FUNCTION dispatch_calls(p_items jsonb, p_instance text, p_limit integer)
    RETURNS TABLE (o_i integer, o_outcome text, o_active bigint, o_agent jsonb, o_language text, o_conversation_id text, o_created_at timestamptz)
    LANGUAGE sql AS $$ SELECT 0, 'stale'::text, 0::bigint, NULL::jsonb, NULL::text, NULL::text, now() $$`);
  t.same((await migrate(db)).functions, ['dispatch_calls.sql']);
  const r = await db.query<{ o_outcome: string }>(`SELECT o_outcome FROM dispatch_calls('[]'::jsonb, 'i', 1)`);
  t.same(r.rows, [], 'the current text replaced the stale one');
});

t.test('a transaction runs a script whose body has semicolons mid-line', async (t) => {
  await db.transaction((tx) => tx.exec(`CREATE FUNCTION t_semi() RETURNS int LANGUAGE plpgsql AS $b$ DECLARE x int; BEGIN x := 1; RETURN x; END $b$;
    CREATE TABLE t_after_semi (id int)`));
  t.same((await db.query<{ v: number }>('SELECT t_semi() AS v')).rows, [{ v: 1 }]);
  await db.exec('DROP FUNCTION t_semi(); DROP TABLE t_after_semi');
});
