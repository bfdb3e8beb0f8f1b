/** Request bodies of /campaigns. */
import { z } from 'zod';
import { customerUrl } from '../net/customer_url.js';
import { HHMM, isTimeZone } from './window.js';

export const MAX_CONTACTS_PER_CAMPAIGN = 10_000;

export const RetryPolicy = z.strictObject({
  max_attempts: z.number().int().min(1).max(10).default(1),
  backoff_minutes: z.number().min(0).max(7 * 24 * 60).default(30),
  on: z.array(z.enum(['no_answer', 'busy', 'failed'])).max(3).default(['no_answer', 'busy']),
});
export type RetryPolicy = z.infer<typeof RetryPolicy>;

const Contact = z.strictObject({
  phone: z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number such as +919812345678'),
  context: z.record(z.string().max(64), z.string().max(1000)).optional(),
});

export const CampaignBody = z.strictObject({
  name: z.string().min(1).max(200),
  agent_id: z.string().min(1).max(64),
  contacts: z.array(Contact).min(1).max(MAX_CONTACTS_PER_CAMPAIGN),
  calling_window: z.strictObject({ start: z.string().regex(HHMM, 'HH:MM'), end: z.string().regex(HHMM, 'HH:MM') })
    .refine((w) => w.start !== w.end, 'start and end must differ').default({ start: '09:00', end: '21:00' }),
  timezone: z.string().min(1).max(64).refine(isTimeZone, 'must be an IANA time zone such as Asia/Kolkata'),
  max_concurrency: z.number().int().min(1).max(1000),
  retry: RetryPolicy.default({ max_attempts: 1, backoff_minutes: 30, on: ['no_answer', 'busy'] }),
  tools: z.array(z.enum(['calendar_booking', 'crm_sync', 'messaging_brochure'])).max(10).optional(),
  webhook_url: customerUrl(2000).optional(),
});
export type CampaignInput = z.infer<typeof CampaignBody>;
