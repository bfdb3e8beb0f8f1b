/**
 * npm run create-tenant -- --name "Acme" --email admin@acme.test --password '…'
 * Creates a tenant, its first admin and a default agent in the configured storage (DATABASE_URL or DATA_DIR).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { openDb } from '../db/db.js';
import { migrate } from '../db/migrate.js';
import { TenantRepo } from '../repos/tenants.js';
import { AgentRepo } from '../repos/agents.js';
import { provisionTenant } from '../tenants.js';

const { values } = parseArgs({ options: { name: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } } });
if (!values.name || !values.email || !values.password || values.password.length < 12) {
  process.stderr.write('usage: npm run create-tenant -- --name NAME --email EMAIL --password PASSWORD(>=12 chars)\n');
  process.exit(2);
}
const config = loadConfig();
const db = await openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
await migrate(db);
const out = await provisionTenant({ tenants: new TenantRepo(db), agents: new AgentRepo(db) }, { name: values.name, email: values.email, password: values.password });
process.stdout.write(JSON.stringify({ tenant_id: out.tenantId, admin_user_id: out.userId }) + '\n');
await db.close();
