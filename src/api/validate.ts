/**
 * zod at the edge: every route parses its body, query and params here and gets typed data or a 400.
 * Strings PostgreSQL cannot store (a NUL, or a lone UTF-16 surrogate, which has no UTF-8 form) are refused here
 * for query and params and, for every JSON body, as soon as it is parsed (src/api/app.ts), so no route can
 * reach the database with one and answer 500.
 */
import type { z } from 'zod';
import { ApiError, ERROR_STATUS, type ErrorCode, type FieldError } from '../errors.js';

export type Where = 'body' | 'query' | 'params' | 'path';

export function parse<S extends z.ZodType>(schema: S, input: unknown, where: Exclude<Where, 'path'> = 'body'): z.output<S> {
  if (where === 'body' && (input === undefined || input === null)) input = {};
  refuseUnstorable(input, where);
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const fields = r.error.issues.map((i) => ({
    path: [where, ...i.path.map(String)].join('.'),
    message: i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}` : i.message,
  }));
  // An issue may name a code of its own (e.g. address_not_allowed); it is used when every issue agrees.
  const codes = new Set(r.error.issues.map((i) => ownCode(i) ?? 'validation_failed'));
  const code: ErrorCode = codes.size === 1 ? [...codes][0] : 'validation_failed';
  throw new ApiError(code, `invalid ${where}: ${fields.map((f) => `${f.path}: ${f.message}`).join('; ')}`, { fields });
}

function ownCode(issue: z.core.$ZodIssue): ErrorCode | undefined {
  const code = (issue as { params?: { code?: unknown } }).params?.code;
  return typeof code === 'string' && code in ERROR_STATUS && ERROR_STATUS[code as ErrorCode] === 400 ? code as ErrorCode : undefined;
}

/** A NUL, or a surrogate not part of a pair. */
const unstorable = (s: string) => s.includes('\0') || !(s as string & { isWellFormed(): boolean }).isWellFormed();

/** A place in the walked value: its key and its parent, so a path is built only for the one string reported. */
interface Place { key: string; parent: Place | undefined }
const pathOf = (where: Where, place: Place | undefined, last?: string): string => {
  const keys: string[] = last === undefined ? [] : [last];
  for (let p = place; p; p = p.parent) keys.push(p.key);
  return [where, ...keys.reverse()].join('.');
};

/**
 * The first string (value or key) in `value` that cannot be stored, as a field error; undefined when none.
 * Iterative, so a deeply nested body cannot exhaust the stack, and linear in the size of `value`: a child holds
 * a link to its parent's place instead of a copy of the whole path (copies made 100,000 levels cost seconds).
 */
export function findUnstorable(value: unknown, where: Where): FieldError | undefined {
  const stack: Array<[unknown, Place | undefined]> = [[value, undefined]];
  while (stack.length) {
    const [v, place] = stack.pop()!;
    if (typeof v === 'string') {
      if (unstorable(v)) return { path: pathOf(where, place), message: describe(v) };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], { key: String(i), parent: place }]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (unstorable(k)) return { path: pathOf(where, place, JSON.stringify(k).slice(1, -1)), message: `key ${describe(k)}` };
        stack.push([child, { key: k, parent: place }]);
      }
    }
  }
  return undefined;
}

const describe = (s: string) => (s.includes('\0') ? 'must not contain a NUL character (\\u0000)' : 'must not contain a lone UTF-16 surrogate');

/** Throws 400 validation_failed naming the first unstorable string of `value`. */
export function refuseUnstorable(value: unknown, where: Where): void {
  const bad = findUnstorable(value, where);
  if (bad) throw new ApiError('validation_failed', `invalid ${where}: ${bad.path}: ${bad.message}`, { fields: [bad] });
}
