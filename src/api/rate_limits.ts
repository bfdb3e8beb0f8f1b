/** Rate limits (rate-limiter-flexible, in process memory: each instance enforces its own budget). */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../errors.js';

export function createRateLimits(opts: { loginPerMinute: number }) {
  const login = new RateLimiterMemory({ points: opts.loginPerMinute, duration: 60 });
  return {
    /** Consumes one point for `key`, or throws 429 rate_limited with Retry-After. */
    async consume(limiter: 'login', key: string): Promise<void> {
      try {
        await ({ login })[limiter].consume(key);
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        const retryAfterSeconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        throw new ApiError('rate_limited', `too many attempts; retry in ${retryAfterSeconds} s`, { retryAfterSeconds });
      }
    },
    async reset(limiter: 'login', key: string): Promise<void> { await ({ login })[limiter].delete(key); },
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;
