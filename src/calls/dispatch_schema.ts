/** The dispatch body (with the client library's inline agent) and the list query. */
import { z } from 'zod';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { AgentRuntimeSettingsSchema, LANGUAGE_TAG } from './agent_settings.js';
import { customerUrl } from '../net/customer_url.js';
import { TOOL_NAMES } from '../tools/types.js';
import { rememberCountry } from '../leads/phone.js';
import { CALL_STATUSES } from './types.js';

/** The simulator's magic numbers (+1500555xxxx) are not real numbers; every other `to` is parsed once. */
const e164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number such as +14155550100')
  .superRefine((s, ctx) => {
    if (s.startsWith('+1500555')) return;
    const p = parsePhoneNumberFromString(s);
    if (!p?.isValid()) ctx.addIssue({ code: 'custom', message: 'is not a valid phone number' });
    else if (p.number !== s) ctx.addIssue({ code: 'custom', message: 'must be in E.164 form' });
    else rememberCountry(s, p.country); // the calling-hours gate and the callee's zone need it next
  });

export const DispatchBody = z.strictObject({
  to: e164,
  agent_id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'lowercase letters, digits, - and _').optional(),
  agent: AgentRuntimeSettingsSchema.optional(),
  language: z.string().regex(LANGUAGE_TAG, 'must be a language tag such as en-US').optional(),
  context: z.record(z.string().min(1).max(64), z.string().max(2000)).refine((c) => Object.keys(c).length <= 50, 'at most 50 keys').optional(),
  tools: z.array(z.enum(TOOL_NAMES as [string, ...string[]])).max(10)
    .refine((t) => new Set(t).size === t.length, 'tools must not repeat').optional(),
  webhook_url: customerUrl(2048).optional(),
  /** place the call past the do-not-disturb and calling-hours gates where regulation allows (admins; stored and audited) */
  transactional: z.strictObject({ reason: z.string().trim().min(5).max(500) }).optional(),
}).refine((b) => !(b.agent_id && b.agent), { message: 'give agent_id or agent, not both', path: ['agent'] });

export const ListQuery = z.strictObject({
  status: z.enum(CALL_STATUSES).optional(),
  agent_id: z.string().max(64).optional(),
  created_after: z.iso.datetime({ offset: true }).transform((s) => new Date(s)).optional(),
  created_before: z.iso.datetime({ offset: true }).transform((s) => new Date(s)).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(100_000).optional(),
  cursor: z.string().max(200).regex(/^[A-Za-z0-9_-]+$/).optional(),
}).refine((q) => !(q.cursor && q.offset), { message: 'use cursor or offset, not both', path: ['offset'] });
