/** The first step every carrier codec takes with a text frame: JSON, an object, with a string `event`. */

export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses a frame into an object with a string `event`; anything else throws the codec's own error. */
export function parseJsonEvent(raw: string, fail: (why: string) => Error): Record<string, unknown> & { event: string } {
  let m: unknown;
  try { m = JSON.parse(raw); } catch { throw fail('not JSON'); }
  if (!isObj(m) || typeof m.event !== 'string') throw fail('not an event');
  return m as Record<string, unknown> & { event: string };
}
