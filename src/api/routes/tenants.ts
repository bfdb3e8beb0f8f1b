/**
 * POST /v1/tenants: the platform's admins create tenants through the running service (the create-tenant CLI cannot
 * open an embedded DATA_DIR the service holds). The platform tenant is PLATFORM_TENANT_ID (default ten_dev, the
 * seeded tenant; `none` turns the route off): an admin JWT of any other tenant is refused.
 */
import { z } from 'zod';
import { forbidden } from '../../errors.js';
import { createTenant } from '../../tenants.js';
import { principalOf } from '../auth_middleware.js';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';

export const TenantBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  admin_email: z.string().email().max(254),
  admin_password: z.string().min(12, 'at least 12 characters').max(1024),
});

export function tenantRoutes(t: RouteTable, deps: AppDeps): void {
  const platform = deps.config.PLATFORM_TENANT_ID === 'none' ? undefined : deps.config.PLATFORM_TENANT_ID;
  t.add({
    method: 'post', path: '/tenants', tag: 'auth', auth: { kind: 'auth', role: 'admin' }, body: TenantBody,
    summary: `Create a tenant with its first admin and a default agent. Only for admins of the platform tenant (PLATFORM_TENANT_ID, here ${platform ?? 'none: turned off'}); other tenants' admins get 403.`,
    responses: { 201: '{tenant_id, name, admin_user_id}', 403: 'not an admin of the platform tenant', 409: 'the admin email is already registered' },
    handler: async (req, res) => {
      const me = principalOf(req);
      if (!platform || me.tenantId !== platform) throw forbidden(platform ? `only admins of the platform tenant (${platform}) create tenants` : 'creating tenants through the API is turned off (PLATFORM_TENANT_ID=none)');
      const body = bodyOf(req, TenantBody);
      const out = await createTenant(deps.db, { name: body.name, email: body.admin_email, password: body.admin_password });
      res.status(201).json({ tenant_id: out.tenantId, name: body.name, admin_user_id: out.userId });
    },
  });
}
