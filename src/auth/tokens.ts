/** Tenant JWTs via jose: HS256 only (alg pinned, so "none" and key-confusion tokens are refused). */
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';

export type Role = 'admin' | 'operator';
export interface Principal {
  /** user id, or api key id for service keys */
  sub: string;
  tenantId: string;
  role: Role;
  kind: 'user' | 'api_key';
}

export const ROLE_RANK: Record<Role, number> = { operator: 1, admin: 2 };
export const hasRole = (p: Principal, need: Role) => ROLE_RANK[p.role] >= ROLE_RANK[need];

export class TokenService {
  #key: Uint8Array;
  constructor(secret: string, readonly ttlSeconds: number) {
    this.#key = new TextEncoder().encode(secret);
  }
  /** `version`: the user's token version when the token is issued (src/auth/revocation.ts checks it per request). */
  async issue(p: { sub: string; tenantId: string; role: Role; version?: number }): Promise<string> {
    return new SignJWT({ tenant_id: p.tenantId, role: p.role, ver: p.version ?? 0 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(p.sub)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(this.#key);
  }
  /**
   * Returns the principal and the token version it was issued at, or undefined with a reason for any invalid,
   * expired or tampered token. Whether the version is still the user's is the caller's check (revocation.ts).
   */
  async verify(token: string): Promise<{ principal?: Principal; version?: number; reason?: string }> {
    try {
      const { payload } = await jwtVerify(token, this.#key, { algorithms: ['HS256'], requiredClaims: ['sub', 'exp'] });
      const role = payload.role;
      const tenantId = payload.tenant_id;
      // tokens issued before versions existed carry none: version 0, which the first revocation ends
      const version = payload.ver ?? 0;
      if ((role !== 'admin' && role !== 'operator') || typeof tenantId !== 'string' || !Number.isSafeInteger(version)) return { reason: 'token claims are invalid' };
      return { principal: { sub: payload.sub!, tenantId, role, kind: 'user' }, version: version as number };
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) return { reason: 'token has expired' };
      return { reason: 'token is invalid' };
    }
  }
}
