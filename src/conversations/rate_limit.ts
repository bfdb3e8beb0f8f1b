/**
 * Demo traffic is rate limited: anonymous requests per client IP (DEMO_REQUESTS_PER_MINUTE), requests with a JWT per
 * tenant (DEMO_TENANT_REQUESTS_PER_MINUTE). The limiter comes from the API's rate limits (src/api/rate_limits.ts):
 * counted in Redis for the whole deployment when REDIS_URL is set, in process memory otherwise.
 */
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { consumeOrRefuse } from '../api/rate_limits.js';

export class DemoRateLimit {
  /** `what` is what is counted, for the 429's detail ("anonymous demo requests") */
  constructor(private readonly limiter: RateLimiterAbstract, private readonly what = 'anonymous demo requests') {}

  /** Consumes one request for `key` (an IP, a tenant), or throws 429 rate_limited with Retry-After. */
  consume(key: string): Promise<void> { return consumeOrRefuse(this.limiter, key, this.what); }
}
