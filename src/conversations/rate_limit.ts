/** Anonymous demo traffic is rate limited per client IP (in process memory: each instance has its own budget). */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../errors.js';

export class DemoRateLimit {
  readonly #limiter: RateLimiterMemory;
  constructor(perMinute: number) { this.#limiter = new RateLimiterMemory({ points: perMinute, duration: 60, keyPrefix: 'demo' }); }

  /** Consumes one request for `ip`, or throws 429 rate_limited with Retry-After. */
  async consume(ip: string): Promise<void> {
    try {
      await this.#limiter.consume(ip);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const retryAfterSeconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      throw new ApiError('rate_limited', `too many anonymous demo requests; retry in ${retryAfterSeconds} s`, { retryAfterSeconds });
    }
  }
}
