/** Tenants, users and API keys. Every lookup that is not a login is scoped by tenant_id. */
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/db.js';
import type { Role } from '../auth/tokens.js';
import { newId } from '../ids.js';

export interface UserRow { id: string; tenant_id: string; email: string; password_hash: string; role: Role; token_version: number }
export interface ApiKeyRow { id: string; tenant_id: string; name: string; prefix: string; role: Role; created_at: string; revoked_at: string | null }

export type PublicUser = Pick<UserRow, 'id' | 'tenant_id' | 'email' | 'role'>;

export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');

export class TenantRepo {
  constructor(private db: Queryable) {}

  async ensureTenant(id: string, name: string): Promise<void> {
    await this.db.query('INSERT INTO tenants (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [id, name]);
  }
  async createTenant(name: string): Promise<string> {
    const id = newId('ten');
    await this.db.query('INSERT INTO tenants (id, name) VALUES ($1, $2)', [id, name]);
    return id;
  }
  /** Creates the user, or replaces the password and role of the user with this email (revoking their tokens). */
  async upsertUser(u: { tenantId: string; email: string; passwordHash: string; role: Role }): Promise<string> {
    const r = await this.db.query<{ id: string }>(
      `INSERT INTO users (id, tenant_id, email, password_hash, role) VALUES ($1, $2, lower($3), $4, $5)
       ON CONFLICT (email) DO UPDATE SET password_hash = EXCLUDED.password_hash, role = EXCLUDED.role,
         token_version = users.token_version + 1 RETURNING id`,
      [newId('usr'), u.tenantId, u.email, u.passwordHash, u.role],
    );
    return r.rows[0].id;
  }
  async listUsers(tenantId: string): Promise<Omit<UserRow, 'password_hash' | 'token_version'>[]> {
    return (await this.db.query<UserRow>('SELECT id, tenant_id, email, role FROM users WHERE tenant_id = $1 ORDER BY email', [tenantId])).rows;
  }
  /** Creates a user in a tenant; undefined when the email is taken (emails are unique across tenants). */
  async createUser(u: { tenantId: string; email: string; passwordHash: string; role: Role }): Promise<PublicUser | undefined> {
    const r = await this.db.query<UserRow>(
      `INSERT INTO users (id, tenant_id, email, password_hash, role) VALUES ($1, $2, lower($3), $4, $5)
       ON CONFLICT (email) DO NOTHING RETURNING id, tenant_id, email, role`,
      [newId('usr'), u.tenantId, u.email, u.passwordHash, u.role]);
    return r.rows[0];
  }
  async deleteUser(tenantId: string, id: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM users WHERE tenant_id = $1 AND id = $2', [tenantId, id])).rowCount > 0;
  }
  /**
   * Changes a user's role and/or password hash and raises their token version (every token issued before stops
   * working); with neither, only raises it (sign-out everywhere). Undefined for no such user in this tenant.
   */
  async changeUser(tenantId: string, id: string, change: { role?: Role; passwordHash?: string } = {}): Promise<PublicUser | undefined> {
    const r = await this.db.query<PublicUser>(
      `UPDATE users SET role = COALESCE($3, role), password_hash = COALESCE($4, password_hash), token_version = token_version + 1
       WHERE tenant_id = $1 AND id = $2 RETURNING id, tenant_id, email, role`, [tenantId, id, change.role ?? null, change.passwordHash ?? null]);
    return r.rows[0];
  }
  async findUserByEmail(email: string): Promise<UserRow | undefined> {
    return (await this.db.query<UserRow>('SELECT id, tenant_id, email, password_hash, role, token_version FROM users WHERE email = lower($1)', [email])).rows[0];
  }
  /** What a user's tokens are checked against on every request (src/auth/revocation.ts). */
  async tokenState(id: string): Promise<{ tenant_id: string; role: Role; token_version: number } | undefined> {
    return (await this.db.query<{ tenant_id: string; role: Role; token_version: number }>(
      'SELECT tenant_id, role, token_version FROM users WHERE id = $1', [id])).rows[0];
  }

  /** Creates a key `vk_<8 hex>_<secret>`; only its SHA-256 is stored (the key has 192 random bits). */
  async createApiKey(tenantId: string, name: string, role: Role): Promise<{ key: string; row: ApiKeyRow }> {
    const prefix = randomBytes(4).toString('hex');
    const key = `vk_${prefix}_${randomBytes(24).toString('base64url')}`;
    const r = await this.db.query<ApiKeyRow>(
      `INSERT INTO api_keys (id, tenant_id, name, prefix, key_hash, role) VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING id, tenant_id, name, prefix, role, created_at, revoked_at`,
      [newId('key'), tenantId, name, prefix, hashApiKey(key), role],
    );
    return { key, row: r.rows[0] };
  }
  /** Registers an externally configured key (SERVICE_API_KEY) under a fixed id; idempotent across restarts. */
  async ensureApiKey(id: string, tenantId: string, key: string, role: Role): Promise<void> {
    await this.db.query(
      `INSERT INTO api_keys (id, tenant_id, name, prefix, key_hash, role) VALUES ($1, $2, 'SERVICE_API_KEY', 'env', $3, $4)
       ON CONFLICT (id) DO UPDATE SET key_hash = EXCLUDED.key_hash, revoked_at = NULL`,
      [id, tenantId, hashApiKey(key), role],
    );
  }
  async findActiveApiKey(key: string): Promise<ApiKeyRow | undefined> {
    return (await this.db.query<ApiKeyRow>(
      'SELECT id, tenant_id, name, prefix, role, created_at, revoked_at FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
      [hashApiKey(key)],
    )).rows[0];
  }
  async listApiKeys(tenantId: string): Promise<ApiKeyRow[]> {
    return (await this.db.query<ApiKeyRow>(
      'SELECT id, tenant_id, name, prefix, role, created_at, revoked_at FROM api_keys WHERE tenant_id = $1 ORDER BY created_at', [tenantId],
    )).rows;
  }
  async revokeApiKey(tenantId: string, id: string): Promise<boolean> {
    const r = await this.db.query('UPDATE api_keys SET revoked_at = now() WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL', [tenantId, id]);
    return r.rowCount > 0;
  }
}
