/**
 * npm run create-tenant -- --name "Acme" --email admin@acme.test --password '…'
 * Creates a tenant, its first admin and a default agent in the configured storage (DATABASE_URL or DATA_DIR).
 * An embedded DATA_DIR held by the running service is refused (one process at a time on PGlite's files): stop the
 * service first, or create the tenant through the running service's API (POST /v1/tenants).
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { openDb } from '../db/db.js';
import { migrate } from '../db/migrate.js';
import { DataDirLockedError, lockDataDir, usesEmbeddedDataDir } from '../db/data_dir_lock.js';
import { createTenant } from '../tenants.js';
import { ApiError } from '../errors.js';

const fail = (message: string): never => { process.stderr.write(`${message}\n`); process.exit(2); };

const { values } = parseArgs({ options: { name: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } } });
if (!values.name || !values.email || !values.password || values.password.length < 12) {
  fail('usage: npm run create-tenant -- --name NAME --email EMAIL --password PASSWORD(>=12 chars)');
}
let config;
try { config = loadConfig(); } catch (err) { if (err instanceof ConfigError) fail(err.message); throw err; }
config = config!;

let lock;
try {
  lock = usesEmbeddedDataDir(config) ? await lockDataDir(config.DATA_DIR) : undefined;
} catch (err) {
  if (!(err instanceof DataDirLockedError)) throw err;
  fail(`${err.message}.\nThe service is probably running on it: stop it first, or create the tenant through its API:\n`
    + `  curl -X POST <PUBLIC_BASE_URL>/tenants -H "authorization: Bearer <admin JWT of the platform tenant, ${config.PLATFORM_TENANT_ID}>" \\\n`
    + `       -H 'content-type: application/json' -d '{"name": "…", "admin_email": "…", "admin_password": "…"}'\n`
    + `If no such process runs, delete ${err.lockPath}.`);
}
const db = await openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
try {
  await migrate(db);
  const out = await createTenant(db, { name: values.name!, email: values.email!, password: values.password! });
  process.stdout.write(JSON.stringify({ tenant_id: out.tenantId, admin_user_id: out.userId }) + '\n');
} catch (err) {
  if (err instanceof ApiError) fail(err.message);
  throw err;
} finally {
  await db.close();
  await lock?.release();
}
