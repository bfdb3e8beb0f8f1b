/** Admin management of the tenant's users (operators and other admins). */
import { z } from 'zod';
import { ApiError, conflict, notFound } from '../../errors.js';
import { hashPassword } from '../../auth/passwords.js';
import { principalOf } from '../auth_middleware.js';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';

export const UserBody = z.strictObject({
  email: z.string().email().max(254),
  password: z.string().min(12, 'at least 12 characters').max(1024),
  role: z.enum(['admin', 'operator']),
});

export function userRoutes(t: RouteTable, deps: AppDeps): void {
  t.add({
    method: 'get', path: '/users', tag: 'auth', auth: { kind: 'auth', role: 'admin' },
    summary: "List the tenant's users (id, email, role).",
    handler: async (req) => ({ data: await deps.repos.tenants.listUsers(principalOf(req).tenantId) }),
  });
  t.add({
    method: 'post', path: '/users', tag: 'auth', auth: { kind: 'auth', role: 'admin' }, body: UserBody,
    summary: 'Create a user of this tenant with role admin or operator (password hashed with scrypt).',
    responses: { 201: 'created', 409: 'email already registered' },
    handler: async (req, res) => {
      const body = bodyOf(req, UserBody);
      const user = await deps.repos.tenants.createUser({ tenantId: principalOf(req).tenantId, email: body.email, role: body.role, passwordHash: await hashPassword(body.password) });
      if (!user) throw conflict('a user with this email already exists');
      res.status(201).json(user);
    },
  });
  t.add({
    method: 'delete', path: '/users/:id', tag: 'auth', auth: { kind: 'auth', role: 'admin' },
    summary: 'Delete a user of this tenant (not yourself).', responses: { 204: 'deleted' },
    handler: async (req, res) => {
      const me = principalOf(req);
      if (me.sub === req.params.id) throw new ApiError('conflict', 'you cannot delete yourself');
      if (!(await deps.repos.tenants.deleteUser(me.tenantId, String(req.params.id)))) throw notFound('user');
      res.status(204).end();
    },
  });
}
