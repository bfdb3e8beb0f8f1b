/** Provisioning a tenant with its first admin and default agent: the tenants API, the create-tenant CLI, tests. */
import { hashPassword } from './auth/passwords.js';
import type { Db } from './db/db.js';
import { conflict } from './errors.js';
import { TenantRepo } from './repos/tenants.js';
import { AgentRepo, DEFAULT_AGENT } from './repos/agents.js';

/** Test fixtures: creates the tenant, and its admin (replacing a user with the same email) and default agent. */
export async function provisionTenant(repos: { tenants: TenantRepo; agents: AgentRepo }, t: { name: string; email: string; password: string }) {
  const tenantId = await repos.tenants.createTenant(t.name);
  const userId = await repos.tenants.upsertUser({ tenantId, email: t.email, passwordHash: await hashPassword(t.password), role: 'admin' });
  await repos.agents.put(tenantId, 'default', DEFAULT_AGENT);
  return { tenantId, userId };
}

/**
 * A new tenant, its first admin and its default agent, in one transaction: an email already registered (emails are
 * unique across tenants) is a 409 conflict and leaves nothing behind, never a takeover of that user.
 */
export async function createTenant(db: Db, t: { name: string; email: string; password: string }): Promise<{ tenantId: string; userId: string }> {
  const passwordHash = await hashPassword(t.password); // ~50 ms of scrypt, outside the transaction
  return db.transaction(async (tx) => {
    const tenants = new TenantRepo(tx);
    const tenantId = await tenants.createTenant(t.name);
    const user = await tenants.createUser({ tenantId, email: t.email, passwordHash, role: 'admin' });
    if (!user) throw conflict('a user with this email already exists (emails are unique across tenants)');
    await new AgentRepo(tx).put(tenantId, 'default', DEFAULT_AGENT);
    return { tenantId, userId: user.id };
  });
}
