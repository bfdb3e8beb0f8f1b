/** A privacy subject is an E.164 number, known to us only as SHA-256 hex of its exact E.164 string. */
import { createHash } from 'node:crypto';
import { z } from 'zod';

export const E164 = /^\+[1-9]\d{6,14}$/;

export const subjectHash = (e164: string): string => createHash('sha256').update(e164, 'utf8').digest('hex');

/** Body of export/erase (spec §2.7): exactly one of e164 or subject. */
export const SubjectBody = z.union([
  z.strictObject({ e164: z.string().regex(E164, 'must be an E.164 number such as +919812345678') }),
  z.strictObject({ subject: z.string().regex(/^[0-9a-f]{64}$/, 'must be the lowercase SHA-256 hex of the E.164 number') }),
]);
export type SubjectInput = z.infer<typeof SubjectBody>;

export const hashOfInput = (s: SubjectInput): string => ('e164' in s ? subjectHash(s.e164) : s.subject);

/** SQL expression: SHA-256 hex of a text column, same bytes as subjectHash (UTF-8 of the stored string). */
export const sqlHash = (column: string): string => `encode(sha256(convert_to(${column}, 'UTF8')), 'hex')`;
