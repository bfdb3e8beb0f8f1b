/** A schema of its own on DATABASE_URL for one bench run (like the tests' fresh schemas), dropped afterwards. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export async function freshSchema(base: string): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  await c.query(`CREATE SCHEMA ${schema}`);
  await c.end();
  const u = new URL(base);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return { url: u.toString(), async drop() {
    const d = new pg.Client({ connectionString: base });
    await d.connect();
    await d.query(`DROP SCHEMA ${schema} CASCADE`);
    await d.end();
  } };
}
