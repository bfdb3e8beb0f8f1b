/**
 * Admin management of the tenant's users (operators and other admins), and signing out everywhere. Deleting a
 * user, changing their role or password, and signing them out revoke every token they hold, at once and on every
 * instance (src/auth/revocation.ts).
 */
import { z } from 'zod';
import { ApiError, conflict, notFound } from '../../errors.js';
import { hashPassword } from '../../auth/passwords.js';
import { principalOf } from '../auth_middleware.js';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';

const password = z.string().min(12, 'at least 12 characters').max(1024);
const role = z.enum(['admin', 'operator']);

export const UserBody = z.strictObject({
  email: z.string().email().max(254),
  password,
  role,
});

export const UserChange = z.strictObject({ role: role.optional(), password: password.optional() })
  .refine((c) => c.role !== undefined || c.password !== undefined, 'give role, password or both');

const REVOKES = "Every token the user holds stops working at once, on every instance (also an open live stream's).";

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
    method: 'patch', path: '/users/:id', tag: 'auth', auth: { kind: 'auth', role: 'admin' }, body: UserChange,
    summary: `Change a user's role and/or password (not your own role). ${REVOKES}`,
    responses: { 200: 'the user {id, tenant_id, email, role}', 404: 'no such user in this tenant', 409: 'your own role' },
    handler: async (req) => {
      const me = principalOf(req);
      const body = bodyOf(req, UserChange);
      const id = String(req.params.id);
      if (body.role !== undefined && me.sub === id) throw new ApiError('conflict', 'you cannot change your own role');
      const user = await deps.repos.tenants.changeUser(me.tenantId, id, { role: body.role, passwordHash: body.password && await hashPassword(body.password) });
      if (!user) throw notFound('user');
      await deps.revocation.revokeUser(id);
      return user;
    },
  });
  t.add({
    method: 'post', path: '/users/:id/sign-out', tag: 'auth', auth: { kind: 'auth', role: 'admin' },
    summary: `Sign a user of this tenant out everywhere. ${REVOKES}`,
    responses: { 204: 'signed out', 404: 'no such user in this tenant' },
    handler: async (req, res) => {
      const me = principalOf(req);
      const id = String(req.params.id);
      if (!(await deps.repos.tenants.changeUser(me.tenantId, id))) throw notFound('user');
      await deps.revocation.revokeUser(id);
      res.status(204).end();
    },
  });
  t.add({
    method: 'delete', path: '/users/:id', tag: 'auth', auth: { kind: 'auth', role: 'admin' },
    summary: `Delete a user of this tenant (not yourself). ${REVOKES}`, responses: { 204: 'deleted' },
    handler: async (req, res) => {
      const me = principalOf(req);
      const id = String(req.params.id);
      if (me.sub === id) throw new ApiError('conflict', 'you cannot delete yourself');
      if (!(await deps.repos.tenants.deleteUser(me.tenantId, id))) throw notFound('user');
      await deps.revocation.revokeUser(id);
      res.status(204).end();
    },
  });
  t.add({
    method: 'post', path: '/auth/sign-out', tag: 'auth', auth: { kind: 'auth' },
    summary: 'Sign yourself out everywhere: every token you hold stops working at once, on every instance, this one included (sign in again for a new one).',
    responses: { 204: 'signed out' },
    handler: async (req, res) => {
      const me = principalOf(req);
      await deps.repos.tenants.changeUser(me.tenantId, me.sub);
      await deps.revocation.revokeUser(me.sub);
      res.status(204).end();
    },
  });
}
