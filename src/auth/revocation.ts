/**
 * A user's JWT is good only while the user exists with the tenant, role and token version it was issued with.
 * Checked on every request through a small per-instance cache; whatever changes a user's tokens (deleting the user,
 * a role or password change, sign-out everywhere) raises the version in storage and then tells every instance over
 * the bus to forget the user, so the change applies at once everywhere. The cache also forgets everything when the
 * bus comes back from an outage (messages may have been lost) and each entry after CACHE_MS regardless.
 */
import type { Bus } from '../bus/bus.js';
import type { Principal, Role } from './tokens.js';

export const REVOCATION_CHANNEL = 'auth:revoked';
/** The longest a cached user is believed without a bus message: the bound if a revocation message is lost, ms. */
export const CACHE_MS = 30_000;
const CACHE_MAX = 10_000;

/** What a user's tokens are checked against; undefined when the user no longer exists. */
export interface UserTokenState { tenant_id: string; role: Role; token_version: number }
export interface UserTokenLookup { tokenState(userId: string): Promise<UserTokenState | undefined> }

type Message = { user: string } | { api_keys: true };

export class TokenRevocation {
  readonly #cache = new Map<string, { state: UserTokenState | undefined; until: number }>();
  /** Raised by every forget: a lookup that started before one does not store what it read (it may predate it). */
  #epoch = 0;
  readonly #userListeners = new Map<string, Set<() => void>>();
  readonly #apiKeyListeners = new Set<() => void>();
  #unsubscribe: (() => void) | undefined;
  #offReconnect: (() => void) | undefined;

  constructor(private readonly users: UserTokenLookup, private readonly bus: Bus, private readonly onError: (err: unknown) => void = () => {}) {}

  /** Listens for revocations from every instance (this one included). */
  async start(): Promise<void> {
    this.#unsubscribe = await this.bus.subscribe(REVOCATION_CHANNEL, (m) => this.#received(m as Message));
    this.#offReconnect = this.bus.onReconnect(() => this.#forgetAll());
  }

  /** True when a JWT of `p` issued at token version `version` is still good. */
  async check(p: Principal, version: number): Promise<boolean> {
    const state = await this.#state(p.sub);
    return !!state && state.tenant_id === p.tenantId && state.role === p.role && state.token_version === version;
  }

  /** After storage revoked a user's tokens: forget the user here, then on every other instance. */
  async revokeUser(userId: string): Promise<void> {
    this.#forgetUser(userId);
    await this.#publish({ user: userId });
  }

  /** After an API key was revoked: every instance drops its verified keys. */
  async revokedApiKeys(): Promise<void> {
    this.#notify(this.#apiKeyListeners);
    await this.#publish({ api_keys: true });
  }

  /** Calls `fn` when the user's tokens are revoked (to close what they hold open); returns the remover. */
  onUserRevoked(userId: string, fn: () => void): () => void {
    let set = this.#userListeners.get(userId);
    if (!set) this.#userListeners.set(userId, (set = new Set()));
    set.add(fn);
    return () => { set!.delete(fn); if (set!.size === 0 && this.#userListeners.get(userId) === set) this.#userListeners.delete(userId); };
  }

  onApiKeysRevoked(fn: () => void): () => void {
    this.#apiKeyListeners.add(fn);
    return () => { this.#apiKeyListeners.delete(fn); };
  }

  close(): void {
    this.#unsubscribe?.();
    this.#offReconnect?.();
    this.#cache.clear();
  }

  async #state(userId: string): Promise<UserTokenState | undefined> {
    const now = Date.now();
    const hit = this.#cache.get(userId);
    if (hit && hit.until > now) return hit.state;
    const epoch = this.#epoch;
    const state = await this.users.tokenState(userId);
    if (epoch === this.#epoch) {
      if (this.#cache.size >= CACHE_MAX) this.#cache.clear();
      this.#cache.set(userId, { state, until: now + CACHE_MS });
    }
    return state;
  }

  /** A publish that fails (Redis unreachable) leaves the other instances to CACHE_MS or their reconnect. */
  async #publish(m: Message): Promise<void> {
    try { await this.bus.publish(REVOCATION_CHANNEL, m); } catch (err) { this.onError(err); }
  }

  #received(m: Message): void {
    if ('user' in m && typeof m.user === 'string') this.#forgetUser(m.user);
    else if ('api_keys' in m) this.#notify(this.#apiKeyListeners);
  }

  #forgetUser(userId: string): void {
    this.#epoch++;
    this.#cache.delete(userId);
    const set = this.#userListeners.get(userId);
    if (set) this.#notify(set);
  }

  #forgetAll(): void {
    this.#epoch++;
    this.#cache.clear();
    this.#notify(this.#apiKeyListeners);
  }

  #notify(fns: Iterable<() => void>): void {
    for (const fn of [...fns]) { try { fn(); } catch (err) { this.onError(err); } }
  }
}
