/** Provisioning a tenant with its first admin: used by the create-tenant CLI and by tests. */
import { hashPassword } from './auth/passwords.js';
import type { TenantRepo } from './repos/tenants.js';
import type { AgentRepo } from './repos/agents.js';
import { DEFAULT_AGENT } from './repos/agents.js';

export async function provisionTenant(repos: { tenants: TenantRepo; agents: AgentRepo }, t: { name: string; email: string; password: string }) {
  const tenantId = await repos.tenants.createTenant(t.name);
  const userId = await repos.tenants.upsertUser({ tenantId, email: t.email, passwordHash: await hashPassword(t.password), role: 'admin' });
  await repos.agents.put(tenantId, 'default', DEFAULT_AGENT);
  return { tenantId, userId };
}
