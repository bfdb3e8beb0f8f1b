/** A second tenant with an admin and an operator, for isolation and role tests. */
import { randomBytes } from 'node:crypto';
import { provisionTenant } from '../../src/tenants.js';
import type { RunningServer } from '../../src/server.js';
import { api, login } from './server.js';

export async function makeTenant(srv: RunningServer, name = 'tenant') {
  const tag = randomBytes(4).toString('hex');
  const adminEmail = `admin-${tag}@${name}.test`;
  const password = `pw-${tag}-long-enough`;
  const { tenantId } = await provisionTenant(srv.services.repos, { name: `${name}-${tag}`, email: adminEmail, password });
  const adminToken = await login(srv.baseUrl, adminEmail, password);
  const opEmail = `op-${tag}@${name}.test`;
  const r = await api(srv.baseUrl, 'POST', '/users', { token: adminToken, body: { email: opEmail, password, role: 'operator' } });
  if (r.status !== 201) throw new Error(`operator create failed ${r.status}`);
  const operatorToken = await login(srv.baseUrl, opEmail, password);
  return { tenantId, adminToken, operatorToken, adminEmail, operatorEmail: opEmail, password };
}
