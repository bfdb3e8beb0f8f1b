/**
 * Demo traffic is rate limited: anonymous requests per client IP (DEMO_REQUESTS_PER_MINUTE), requests with a JWT per
 * tenant (DEMO_TENANT_REQUESTS_PER_MINUTE). In process memory: each instance has its own budget.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../errors.js';

export class DemoRateLimit {
  readonly #limiter: RateLimiterMemory;
  /** what is counted, for the 429's detail ("anonymous demo requests") */
  readonly #what: string;
  constructor(perMinute: number, what = 'anonymous demo requests') {
    this.#limiter = new RateLimiterMemory({ points: perMinute, duration: 60, keyPrefix: `demo:${what}` });
    this.#what = what;
  }

  /** Consumes one request for `key` (an IP, a tenant), or throws 429 rate_limited with Retry-After. */
  async consume(key: string): Promise<void> {
    try {
      await this.#limiter.consume(key);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const retryAfterSeconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      throw new ApiError('rate_limited', `too many ${this.#what}; retry in ${retryAfterSeconds} s`, { retryAfterSeconds });
    }
  }
}
