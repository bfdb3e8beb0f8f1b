/**
 * A 10,000-contact campaign against instantly completing calls (a stand-in call engine: each dispatch inserts a
 * calls row and ends it after 0-2 ms, notifying onCallEnded like deps.calls). The real dialer loop runs
 * (one instance, then, on PostgreSQL, two instances sharing the database). Reports the most calls ever in flight against
 * max_concurrency, duplicates, and throughput. Storage follows DATABASE_URL (PostgreSQL) or in-memory PGlite.
 *   npx tsx bench/campaign_pacing.bench.ts            (CONTACTS=10000 CONCURRENCY=50)
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/campaign_pacing.bench.ts
 */
import { openDb } from '../src/db/db.js';
import { migrate } from '../src/db/migrate.js';
import { createLogger } from '../src/log.js';
import { CampaignRepo } from '../src/campaigns/repo.js';
import { CampaignDialer } from '../src/campaigns/dialer.js';
import { CampaignBody } from '../src/campaigns/schema.js';
import { freshSchemaUrl } from '../test/helpers/server.js';
import { FakeCalls } from '../test/campaigns/fake_calls.js';

const CONTACTS = Number(process.env.CONTACTS ?? 10_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 50);
const url = process.env.DATABASE_URL ? await freshSchemaUrl(process.env.DATABASE_URL) : undefined;
const db = await openDb({ databaseUrl: url, dataDir: 'memory' });
await migrate(db);
await db.query(`INSERT INTO tenants (id, name) VALUES ('ten_bench', 'bench') ON CONFLICT DO NOTHING`);
const log = createLogger('silent');
const repo = new CampaignRepo(db);
const rows: Array<Record<string, string | number>> = [];

async function run(instances: number) {
  // inputs built before timing: the campaign and its contacts are stored first
  const input = CampaignBody.parse({
    name: `bench-${instances}`, agent_id: 'default', timezone: 'UTC', calling_window: { start: '00:00', end: '23:59' },
    max_concurrency: CONCURRENCY, contacts: Array.from({ length: CONTACTS }, (_, i) => ({ phone: `+9190${String(i).padStart(8, '0')}` })),
  });
  const campaign = await repo.create('ten_bench', input, 'bench');
  const fake = new FakeCalls(db, 'ten_bench', () => ({ status: 'completed' }), 0);
  const dialers = Array.from({ length: instances }, (_, i) => new CampaignDialer({
    db, log, calls: fake, gate: async () => ({ action: 'allow' }), tickMs: 20, leaseSeconds: 120, instanceId: `bench-${i}`,
  }));
  // whole-day window: this clock is the real one
  const t0 = performance.now();
  await repo.transition('ten_bench', campaign.id, 'start');
  for (const d of dialers) d.start();
  for (;;) {
    const s = await db.query<{ state: string }>('SELECT state FROM campaigns WHERE id = $1', [campaign.id]);
    if (s.rows[0].state === 'completed') break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const seconds = (performance.now() - t0) / 1000;
  for (const d of dialers) await d.stop();
  await fake.settle();
  rows.push({
    backend: db.kind, instances, contacts: CONTACTS, max_concurrency: CONCURRENCY, max_in_flight: fake.maxInFlight,
    dials: fake.dispatched.length, duplicates: fake.dispatched.length - new Set(fake.dispatched).size,
    seconds: Number(seconds.toFixed(2)), calls_per_s: Math.round(fake.dispatched.length / seconds),
  });
}

await run(1);
// two dialers sharing one embedded PGlite connection prove little and take minutes: PostgreSQL only
if (db.kind === 'postgres') await run(2);
console.table(rows);
const bad = rows.filter((r) => Number(r.max_in_flight) > CONCURRENCY || Number(r.duplicates) > 0 || r.dials !== CONTACTS);
await db.close();
if (bad.length) { console.error('pacing violated'); process.exit(1); }
