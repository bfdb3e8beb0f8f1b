/** A privacy subject is an E.164 number, known to us only as SHA-256 hex of its exact E.164 string. */
import { createHash } from 'node:crypto';
import { z } from 'zod';

export const E164 = /^\+[1-9]\d{6,14}$/;

export const subjectHash = (e164: string): string => createHash('sha256').update(e164, 'utf8').digest('hex');

const ONE_OF = 'give exactly one of e164 (the E.164 number) or subject (its SHA-256 hex), not both';

/** Body of export/erase: exactly one of e164 or subject (an error says so, not "Invalid input"). */
export const SubjectBody = z.strictObject({
  e164: z.string().regex(E164, 'must be an E.164 number such as +919812345678').optional(),
  subject: z.string().regex(/^[0-9a-f]{64}$/, 'must be the lowercase SHA-256 hex of the E.164 number').optional(),
}).superRefine((b, ctx) => {
  if ((b.e164 === undefined) === (b.subject === undefined)) ctx.addIssue({ code: 'custom', message: ONE_OF, path: b.e164 === undefined ? [] : ['subject'] });
});
export type SubjectInput = z.infer<typeof SubjectBody>;

export const hashOfInput = (s: SubjectInput): string => (s.e164 !== undefined ? subjectHash(s.e164) : s.subject!);

/** SQL expression: SHA-256 hex of a text column, same bytes as subjectHash (UTF-8 of the stored string). */
export const sqlHash = (column: string): string => `encode(sha256(convert_to(${column}, 'UTF8')), 'hex')`;
