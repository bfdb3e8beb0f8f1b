/**
 * One authentication step per route, driven by the route's declared rule:
 *  - Bearer JWT (HS256, tenant-scoped claims),
 *  - service API keys, as Bearer or X-Api-Key, only on routes that declare `apiKey: true`,
 *  - role check (admin includes operator).
 * Failures are 401 unauthenticated / 403 forbidden, never a hint about which part was wrong beyond that.
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { ApiError } from '../errors.js';
import { hasRole, type Principal, type Role } from '../auth/tokens.js';
import type { AppDeps } from './deps.js';

export type AuthRule =
  | { kind: 'public'; optionalJwt?: boolean }
  | { kind: 'auth'; role?: Role; apiKey?: boolean };

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
    /** exact request body bytes (JSON routes), for signature checks */
    rawBody?: Buffer;
  }
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

export function bearerToken(req: Pick<Request, 'headers'>): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : '';
}

/** Resolves a raw credential (JWT or API key) to a principal; shared with the WebSocket edges. */
export async function resolveCredential(deps: AppDeps, token: string, allowApiKey: boolean): Promise<Principal> {
  if (JWT_SHAPE.test(token)) {
    const { principal, reason } = await deps.tokens.verify(token);
    if (!principal) throw new ApiError('unauthenticated', reason ?? 'token is invalid');
    return principal;
  }
  if (!allowApiKey) throw new ApiError('unauthenticated', 'a JWT is required on this route');
  const cache = keyCacheOf(deps);
  const digest = createHash('sha256').update(token).digest('base64');
  const now = Date.now();
  const hit = cache.get(digest);
  if (hit && hit.until > now) return { ...hit.principal };
  const key = await deps.repos.tenants.findActiveApiKey(token);
  if (!key) {
    cache.delete(digest);
    throw new ApiError('unauthenticated', 'API key is invalid or revoked');
  }
  const principal: Principal = { sub: key.id, tenantId: key.tenant_id, role: key.role, kind: 'api_key' };
  if (cache.size >= API_KEY_CACHE_MAX) cache.clear();
  cache.set(digest, { principal, until: now + API_KEY_CACHE_MS });
  return { ...principal };
}

/**
 * Verified API keys, per process (keyed by the SHA-256 of the key, never the key): a service client sending the
 * same key on every request costs one lookup per API_KEY_CACHE_MS instead of one per request. Only successful
 * lookups are kept, so a new key works at once; a revoked key stops at once on the instance that revoked it
 * (forgetVerifiedApiKeys) and within API_KEY_CACHE_MS on the others.
 */
export const API_KEY_CACHE_MS = 5_000;
const API_KEY_CACHE_MAX = 10_000;
const keyCaches = new WeakMap<object, Map<string, { principal: Principal; until: number }>>();
function keyCacheOf(deps: AppDeps): Map<string, { principal: Principal; until: number }> {
  let c = keyCaches.get(deps.repos.tenants);
  if (!c) keyCaches.set(deps.repos.tenants, (c = new Map()));
  return c;
}

export function authenticate(deps: AppDeps, rule: AuthRule): RequestHandler {
  return async (req, _res, next) => {
    const bearer = bearerToken(req);
    const xKey = typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : undefined;
    if (rule.kind === 'public') {
      // A public route with an optional JWT: a valid token ties the request to a tenant, a bad one is refused.
      if (rule.optionalJwt && bearer !== undefined) req.principal = await resolveCredential(deps, bearer, false);
      return next();
    }
    let principal: Principal;
    if (bearer) principal = await resolveCredential(deps, bearer, !!rule.apiKey);
    else if (xKey && rule.apiKey) principal = await resolveCredential(deps, xKey, true);
    else throw new ApiError('unauthenticated', bearer === '' ? 'Authorization header must be "Bearer <token>"' : 'missing credentials');
    if (rule.role && !hasRole(principal, rule.role)) throw new ApiError('forbidden', `this route needs the ${rule.role} role`);
    req.principal = principal;
    next();
  };
}

/** The authenticated principal of a route that declared auth (never undefined there). */
export function principalOf(req: Request): Principal {
  if (!req.principal) throw new ApiError('unauthenticated', 'missing credentials');
  return req.principal;
}

/** Drops every cached key verification of this process (after a revocation). */
export function forgetVerifiedApiKeys(deps: AppDeps): void { keyCacheOf(deps).clear(); }
