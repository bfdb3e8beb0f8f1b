/** POST /auth/login and the admin's API-key management. */
import { z } from 'zod';
import { ApiError, notFound } from '../../errors.js';
import { verifyPassword, DUMMY_HASH } from '../../auth/passwords.js';
import { forgetVerifiedApiKeys, principalOf } from '../auth_middleware.js';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';

export const LoginBody = z.strictObject({
  email: z.string().email().max(254),
  password: z.string().min(1).max(1024),
});

export const ApiKeyBody = z.strictObject({
  name: z.string().min(1).max(100),
  role: z.enum(['admin', 'operator']).default('operator'),
});

export function authRoutes(t: RouteTable, deps: AppDeps): void {
  t.add({
    method: 'post', path: '/auth/login', tag: 'auth', auth: { kind: 'public' }, body: LoginBody,
    summary: `Exchange a tenant user's email and password for a JWT (HS256; claims sub, tenant_id, role, exp). Limited to ${deps.config.LOGIN_ATTEMPTS_PER_MINUTE} attempts per minute per client address and email, and ${deps.config.LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE} failed attempts per minute per client address across emails.`,
    responses: { 200: '{access_token, token_type, expires_in, role, tenant_id}', 401: 'wrong credentials', 429: 'rate limited' },
    handler: async (req) => {
      const body = bodyOf(req, LoginBody);
      // Per address across emails first (one password sprayed over many accounts), then per address and email.
      // Every attempt takes its points before the password is checked, so a burst of concurrent guesses cannot
      // pass the limit; a success gives the address's point back and clears its email's count.
      const address = req.ip ?? 'unknown';
      const limitKey = `${address}|${body.email.toLowerCase()}`;
      await deps.rateLimits.consume('loginAddress', address);
      await deps.rateLimits.consume('login', limitKey);
      const user = await deps.repos.tenants.findUserByEmail(body.email);
      const ok = await verifyPassword(body.password, user?.password_hash ?? DUMMY_HASH);
      if (!user || !ok) throw new ApiError('unauthenticated', 'email or password is wrong');
      await deps.rateLimits.reset('login', limitKey);
      await deps.rateLimits.reward('loginAddress', address);
      const access_token = await deps.tokens.issue({ sub: user.id, tenantId: user.tenant_id, role: user.role, version: user.token_version });
      return { access_token, token_type: 'Bearer', expires_in: deps.tokens.ttlSeconds, role: user.role, tenant_id: user.tenant_id };
    },
  });

  t.add({
    method: 'get', path: '/api-keys', tag: 'auth', auth: { kind: 'auth', role: 'admin' },
    summary: "List the tenant's service API keys (never the keys themselves, only their prefix).",
    handler: async (req) => ({ data: (await deps.repos.tenants.listApiKeys(principalOf(req).tenantId)).map(publicKey) }),
  });
  t.add({
    method: 'post', path: '/api-keys', tag: 'auth', auth: { kind: 'auth', role: 'admin' }, body: ApiKeyBody,
    summary: 'Create a service API key. The key is shown once in this response and stored only as a SHA-256 hash.',
    responses: { 201: 'the key record plus `key`' },
    handler: async (req, res) => {
      const body = bodyOf(req, ApiKeyBody);
      const { key, row } = await deps.repos.tenants.createApiKey(principalOf(req).tenantId, body.name, body.role);
      res.status(201).json({ ...publicKey(row), key });
    },
  });
  t.add({
    method: 'delete', path: '/api-keys/:id', tag: 'auth', auth: { kind: 'auth', role: 'admin' },
    summary: 'Revoke a service API key.', responses: { 204: 'revoked' },
    handler: async (req, res) => {
      if (!(await deps.repos.tenants.revokeApiKey(principalOf(req).tenantId, String(req.params.id)))) throw notFound('api key');
      await forgetVerifiedApiKeys(deps);
      res.status(204).end();
    },
  });
}

const publicKey = (r: { id: string; name: string; prefix: string; role: string; created_at: unknown; revoked_at: unknown }) => ({
  id: r.id, name: r.name, prefix: r.prefix, role: r.role,
  created_at: r.created_at instanceof Date ? r.created_at.toISOString() : r.created_at,
  revoked_at: r.revoked_at instanceof Date ? r.revoked_at.toISOString() : r.revoked_at,
});
