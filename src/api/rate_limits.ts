/**
 * Rate limits (rate-limiter-flexible). With REDIS_URL the counts live in Redis (keys under REDIS_KEY_PREFIX), so
 * the documented numbers hold for the whole deployment however many instances share it; without it, in process
 * memory. If Redis fails mid-request a limiter falls back to an in-memory count of its own instance (the library's
 * insurance limiter): limits stay on, per instance, rather than refusing every login during an outage.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { ApiError } from '../errors.js';

export type Limiter = 'login' | 'loginAddress';

export interface RateLimitStore {
  /** a connection of the limits' own (not the bus's); unset: in process memory */
  redis?: Redis;
  /** put before every key in Redis, so deployments sharing a Redis count apart */
  keyPrefix?: string;
}

/** A limiter of `points` per `durationSeconds` whose keys are named `name`. */
export function makeLimiter(store: RateLimitStore, points: number, durationSeconds: number, name: string): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ points, duration: durationSeconds, keyPrefix: name });
  if (!store.redis) return memory;
  return new RateLimiterRedis({
    storeClient: store.redis, points, duration: durationSeconds, keyPrefix: `${store.keyPrefix ?? ''}rl:${name}`,
    rejectIfRedisNotReady: true, insuranceLimiter: memory,
  });
}

/** Consumes one point for `key`, or throws 429 rate_limited with Retry-After, `detail` saying what was counted. */
export async function consumeOrRefuse(limiter: RateLimiterAbstract, key: string, what: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    const retryAfterSeconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
    throw new ApiError('rate_limited', `too many ${what}; retry in ${retryAfterSeconds} s`, { retryAfterSeconds });
  }
}

export function createRateLimits(opts: { loginPerMinute: number; loginPerAddressPerMinute?: number }, store: RateLimitStore = {}) {
  const limiters: Record<Limiter, RateLimiterAbstract> = {
    /** attempts per client address and email (guessing one account's password) */
    login: makeLimiter(store, opts.loginPerMinute, 60, 'login'),
    /** attempts per client address across emails (one password tried on many accounts: spraying) */
    loginAddress: makeLimiter(store, opts.loginPerAddressPerMinute ?? 30, 60, 'login_address'),
  };
  return {
    /** Whether counts are shared by every instance (Redis) or kept by this one. */
    shared: !!store.redis,
    /** Consumes one point for `key`, or throws 429 rate_limited with Retry-After. */
    consume: (limiter: Limiter, key: string) => consumeOrRefuse(limiters[limiter], key, 'attempts'),
    /** Gives back a point consumed for `key` (an attempt that turned out legitimate). */
    async reward(limiter: Limiter, key: string): Promise<void> { await limiters[limiter].reward(key, 1); },
    async reset(limiter: Limiter, key: string): Promise<void> { await limiters[limiter].delete(key); },
    /** Another limiter on the same store (the demo's), `points` per minute. */
    perMinute: (points: number, name: string) => makeLimiter(store, points, 60, name),
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;
