/** zod at the edge: every route parses its body, query and params here and gets typed data or a 400. */
import type { z } from 'zod';
import { ApiError } from '../errors.js';

export function parse<S extends z.ZodType>(schema: S, input: unknown, where: 'body' | 'query' | 'params' = 'body'): z.output<S> {
  if (where === 'body' && (input === undefined || input === null)) input = {};
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const fields = r.error.issues.map((i) => ({
    path: [where, ...i.path.map(String)].join('.'),
    message: i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}` : i.message,
  }));
  throw new ApiError('validation_failed', `invalid ${where}: ${fields.map((f) => `${f.path}: ${f.message}`).join('; ')}`, { fields });
}
