/** Rate limits (rate-limiter-flexible, in process memory: each instance enforces its own budget). */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../errors.js';

export type Limiter = 'login' | 'loginAddress';

export function createRateLimits(opts: { loginPerMinute: number; loginPerAddressPerMinute?: number }) {
  const limiters: Record<Limiter, RateLimiterMemory> = {
    /** attempts per client address and email (guessing one account's password) */
    login: new RateLimiterMemory({ points: opts.loginPerMinute, duration: 60 }),
    /** attempts per client address across emails (one password tried on many accounts: spraying) */
    loginAddress: new RateLimiterMemory({ points: opts.loginPerAddressPerMinute ?? 30, duration: 60 }),
  };
  return {
    /** Consumes one point for `key`, or throws 429 rate_limited with Retry-After. */
    async consume(limiter: Limiter, key: string): Promise<void> {
      try {
        await limiters[limiter].consume(key);
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        const retryAfterSeconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        throw new ApiError('rate_limited', `too many attempts; retry in ${retryAfterSeconds} s`, { retryAfterSeconds });
      }
    },
    /** Gives back a point consumed for `key` (an attempt that turned out legitimate). */
    async reward(limiter: Limiter, key: string): Promise<void> { await limiters[limiter].reward(key, 1); },
    async reset(limiter: Limiter, key: string): Promise<void> { await limiters[limiter].delete(key); },
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;
