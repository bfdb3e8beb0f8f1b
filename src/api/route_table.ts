/**
 * Routes are declared once, with their auth rule and zod schemas, and from that one declaration we both
 * mount the Express handler and describe it in OpenAPI: the document cannot drift from what exists.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import etag from 'etag';
import { z } from 'zod';
import type { Role } from '../auth/tokens.js';
import { authenticate, describeAuth, type AuthRule } from './auth_middleware.js';
import type { AppDeps } from './deps.js';
import { parse } from './validate.js';

export type Method = 'get' | 'post' | 'put' | 'delete' | 'patch';

export interface RouteSpec {
  method: Method;
  /** Express path relative to /v1, e.g. "/calls/:id" */
  path: string;
  summary: string;
  tag: string;
  auth: AuthRule;
  /** the JSON body's schema: the table validates it (400 naming the fields) and hands the handler the parsed value */
  body?: z.ZodType;
  query?: z.ZodType;
  /** extra request content types beyond JSON, for the document (e.g. multipart/form-data) */
  requestTypes?: string[];
  /** status -> description */
  responses?: Record<number, string>;
  /** Express handlers run before the body is validated and the handler runs (a multipart parser, a signature check) */
  pre?: Array<(req: Request, res: Response, next: (err?: unknown) => void) => void>;
  handler: (req: Request, res: Response) => Promise<unknown> | unknown;
}

export class RouteTable {
  readonly specs: RouteSpec[] = [];
  readonly sockets: WsSpec[] = [];
  add(spec: RouteSpec): this { this.specs.push(spec); return this; }
  ws(spec: WsSpec): this { this.sockets.push(spec); return this; }

  /**
   * The handler for every declared route, relative to its mount point. Express tries the routes of a router one
   * by one (a regular expression each), so with every route in one router a request to a route declared late
   * (POST /leads, POST /calls/dispatch) first failed some fifty matches. Routes are grouped by their first path
   * segment instead, one router per group, found by a map lookup: the same routes in the same order within a group,
   * and a path's first segment always names its group because every declared path starts with a literal one.
   * Lower-cased like Express's own matching (case-insensitive routing), so /Leads still finds /leads.
   */
  router(deps: AppDeps): RequestHandler {
    const groups = new Map<string, Router>();
    for (const s of this.specs) {
      const segment = firstSegment(s.path)?.toLowerCase();
      if (segment === undefined || segment.startsWith(':')) throw new Error(`route ${s.path}: the first path segment must be literal`);
      let r = groups.get(segment);
      if (!r) groups.set(segment, (r = Router()));
      r[s.method](s.path, authenticate(deps, s.auth), ...(s.pre ?? []), async (req: Request, res: Response) => {
        // a multipart or raw audio body is the route's own to read; JSON (or none) is what `body` describes
        if (s.body && (!req.headers['content-type'] || req.is('json'))) req.body = parse(s.body, req.body);
        const out = await s.handler(req, res);
        if (out === undefined || res.headersSent) return;
        if (s.method !== 'get') return res.json(out);
        // Reads carry an ETag, so a client holding the same answer gets 304 (Express checks If-None-Match in send).
        const body = JSON.stringify(out);
        res.setHeader('ETag', etag(body, { weak: true }));
        res.type('json').send(body);
      });
    }
    return (req, res, next) => {
      const group = groups.get(firstSegment(req.path)?.toLowerCase() ?? '');
      if (group) group(req, res, next); else next();
    };
  }
}

/** "/calls/:id" -> "calls"; undefined for "/" */
function firstSegment(path: string): string | undefined {
  const end = path.indexOf('/', 1);
  const segment = end === -1 ? path.slice(1) : path.slice(1, end);
  return segment || undefined;
}

/** The route's auth rule in words (OpenAPI x-auth), from the rule object authenticate() enforces. */
/** The body the table validated against `schema` (the route's declared `body`), typed. */
export const bodyOf = <S extends z.ZodType>(req: Request, _schema: S): z.output<S> => req.body as z.output<S>;

export const roleLabel = (a: AuthRule): string => describeAuth(a);

export type { Role };

/** A WebSocket endpoint: the HTTP upgrade is routed here by path; auth is the handler's own (tokens may come in the query). */
export interface WsSpec {
  path: string;
  summary: string;
  tag: string;
  auth: AuthRule;
  handle: (req: import('node:http').IncomingMessage, socket: import('node:stream').Duplex, head: Buffer, params: Record<string, string>) => void;
}

/** Matches "/calls/:id/stream" style paths; returns the params or undefined. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const p = pattern.split('/'), s = path.split('/');
  if (p.length !== s.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) {
      if (!s[i]) return undefined;
      try { params[p[i].slice(1)] = decodeURIComponent(s[i]); } catch { return undefined; }
    } else if (p[i] !== s[i]) return undefined;
  }
  return params;
}
