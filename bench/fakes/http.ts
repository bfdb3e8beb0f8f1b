/** Small HTTP helpers shared by the fakes. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export async function readBody(req: IncomingMessage, limit = 1 << 20): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > limit) throw new Error('body too large');
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers }).end(text);
}

/** the user:password of an HTTP Basic Authorization header */
export function basicAuth(req: IncomingMessage): { user: string; pass: string } | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return undefined;
  const text = Buffer.from(m[1], 'base64').toString('utf8');
  const i = text.indexOf(':');
  return i < 0 ? undefined : { user: text.slice(0, i), pass: text.slice(i + 1) };
}

/** POSTs a form to a callback of the service; the status, or the error's message (a fake never throws on it) */
export async function postForm(url: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(params).toString() });
    return { status: res.status, body: await res.text() };
  } catch (err) {
    return { status: 0, body: err instanceof Error ? err.message : String(err) };
  }
}

export const hex = (bytes: number) => Array.from({ length: bytes }, () => Math.floor(Math.random() * 256).toString(16).padStart(2, '0')).join('');
export const uuid = () => crypto.randomUUID();
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
