/**
 * One authentication step per route, driven by the route's declared rule (the same object openapi.ts documents as
 * x-auth and x-auth-accepts, so the document cannot say other than what is enforced):
 *  - Bearer JWT (HS256, tenant-scoped claims),
 *  - service API keys, as Bearer or X-Api-Key, only on routes that declare `apiKey: true`,
 *  - role check (admin includes operator): `role` for JWTs and, unless `apiKeyRole` says otherwise, for API keys.
 * Failures are 401 unauthenticated (no usable credential, or a kind of credential the route does not take) and
 * 403 forbidden (a role too low); the message says what the route needs, never which secret was wrong.
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { ApiError } from '../errors.js';
import { hasRole, type Principal, type Role } from '../auth/tokens.js';
import type { AppDeps } from './deps.js';

export type AuthRule =
  | { kind: 'public'; optionalJwt?: boolean }
  /** role: needed by JWTs (and API keys); apiKey: keys are accepted; apiKeyRole: the role keys need instead of `role` */
  | { kind: 'auth'; role?: Role; apiKey?: boolean; apiKeyRole?: Role };

/** A kind of credential a route may accept; `accepts` lists them for a rule (the OpenAPI x-auth-accepts). */
export type CredentialKind = 'anonymous' | 'operator_jwt' | 'admin_jwt' | 'operator_api_key' | 'admin_api_key';

export function accepts(rule: AuthRule): CredentialKind[] {
  if (rule.kind === 'public') return ['anonymous', 'operator_jwt', 'admin_jwt', ...(rule.optionalJwt ? [] : ['operator_api_key', 'admin_api_key'] as const)];
  const out: CredentialKind[] = [];
  const jwtRole = rule.role, keyRole = rule.apiKeyRole ?? rule.role;
  if (jwtRole !== 'admin') out.push('operator_jwt');
  out.push('admin_jwt');
  if (rule.apiKey) { if (keyRole !== 'admin') out.push('operator_api_key'); out.push('admin_api_key'); }
  return out;
}

/** What a route needs, in words ("admin JWT or API key (any role)"); the OpenAPI x-auth. */
export function describeAuth(rule: AuthRule): string {
  if (rule.kind === 'public') return rule.optionalJwt ? 'public (JWT optional)' : 'public';
  // operator is the lowest role (admin includes it): needing it means any role
  const who = (r: Role | undefined) => (r === 'admin' ? 'admin' : 'any role');
  const jwt = rule.role === 'admin' ? 'admin JWT' : 'JWT (any role)';
  return rule.apiKey ? `${jwt} or API key (${who(rule.apiKeyRole ?? rule.role)})` : jwt;
}

const NEEDS_USER_JWT = "this route needs a user's JWT (Authorization: Bearer <access_token from POST /v1/auth/login>); API keys are not accepted here";

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
    const { principal, version, reason } = await deps.tokens.verify(token);
    if (!principal) throw new ApiError('unauthenticated', reason ?? 'token is invalid');
    if (!(await deps.revocation.check(principal, version ?? 0))) {
      throw new ApiError('unauthenticated', 'token has been revoked (signed out, or the user was changed or deleted): sign in again');
    }
    return principal;
  }
  if (!allowApiKey) throw new ApiError('unauthenticated', NEEDS_USER_JWT);
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
 * (forgetVerifiedApiKeys) and, told over the bus, on the others (within API_KEY_CACHE_MS if that message is lost).
 */
export const API_KEY_CACHE_MS = 5_000;
const API_KEY_CACHE_MAX = 10_000;
const keyCaches = new WeakMap<object, Map<string, { principal: Principal; until: number }>>();
function keyCacheOf(deps: AppDeps): Map<string, { principal: Principal; until: number }> {
  let c = keyCaches.get(deps.repos.tenants);
  if (!c) {
    const cache = (c = new Map());
    keyCaches.set(deps.repos.tenants, cache);
    // a key revoked on any instance: this one forgets what it verified too
    deps.revocation.onApiKeysRevoked(() => cache.clear());
  }
  return c;
}

export function authenticate(deps: AppDeps, rule: AuthRule): RequestHandler {
  return async (req, _res, next) => {
    const bearer = bearerToken(req);
    const xKey = typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : undefined;
    if (rule.kind === 'public') {
      // A public route with an optional JWT: a valid token ties the request to a tenant, a bad one (or an API key,
      // which would otherwise be silently ignored and the request served as anonymous) is refused.
      if (rule.optionalJwt && bearer !== undefined) req.principal = await resolveCredential(deps, bearer, false);
      else if (rule.optionalJwt && xKey) throw new ApiError('unauthenticated', NEEDS_USER_JWT);
      return next();
    }
    let principal: Principal;
    if (bearer) principal = await resolveCredential(deps, bearer, !!rule.apiKey);
    else if (xKey && rule.apiKey) principal = await resolveCredential(deps, xKey, true);
    else if (xKey) throw new ApiError('unauthenticated', NEEDS_USER_JWT);
    else throw new ApiError('unauthenticated', bearer === '' ? 'Authorization header must be "Bearer <token>"' : `missing credentials: this route needs ${describeAuth(rule)}`);
    const need = principal.kind === 'api_key' ? rule.apiKeyRole ?? rule.role : rule.role;
    if (need && !hasRole(principal, need)) throw new ApiError('forbidden', `this route needs ${describeAuth(rule)}`);
    req.principal = principal;
    next();
  };
}

/** The authenticated principal of a route that declared auth (never undefined there). */
export function principalOf(req: Request): Principal {
  if (!req.principal) throw new ApiError('unauthenticated', 'missing credentials');
  return req.principal;
}

/** After a key was revoked: this instance and, over the bus, every other one drop their cached verifications. */
export async function forgetVerifiedApiKeys(deps: AppDeps): Promise<void> {
  keyCacheOf(deps).clear();
  await deps.revocation.revokedApiKeys();
}
