/** How a finished call moves its contact: done, retry later, or a final failure. */
import type { RetryPolicy } from './schema.js';

export type ContactState = 'pending' | 'dialing' | 'retry' | 'done' | 'failed' | 'blocked' | 'canceled';

export interface Outcome { state: ContactState; nextAttemptAt: Date | null }

export function outcomeOf(callStatus: string, attempts: number, retry: RetryPolicy, campaignState: string, now: Date): Outcome {
  if (callStatus === 'completed') return { state: 'done', nextAttemptAt: null };
  if (callStatus === 'blocked') return { state: 'blocked', nextAttemptAt: null };
  const retryable = (retry.on as string[]).includes(callStatus) && attempts < retry.max_attempts;
  if (!retryable) return { state: 'failed', nextAttemptAt: null };
  if (campaignState === 'canceled') return { state: 'canceled', nextAttemptAt: null };
  return { state: 'retry', nextAttemptAt: new Date(now.getTime() + retry.backoff_minutes * 60_000) };
}
