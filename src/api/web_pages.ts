/**
 * The public site (/) and the operator app (/app/…): static pages built by `npm run build:web` into dist/web,
 * and GET /config.json, the settings they read at run time (so changing PUBLIC_VOICE_API_ENDPOINT or
 * SERVICE_API_BASE needs no rebuild). Nothing under /v1 is answered here: API 404s stay problem+json.
 * /config.json carries only public settings; provider keys and secrets never reach it or the bundle.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router, type RequestHandler, type Response } from 'express';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { sendProblem } from './problem.js';
import { fromRoot } from '../package_root.js';

export const WEB_DIST_DIR = fromRoot('dist', 'web') + '/';

/** What a page may know about the service: API bases (null = the page's own origin), mode and audio limit. */
export function publicSettings(config: Config) {
  return {
    public_voice_api_endpoint: config.PUBLIC_VOICE_API_ENDPOINT ?? null,
    service_api_base: config.SERVICE_API_BASE ?? null,
    service_mode: config.SERVICE_MODE,
    audio_max_seconds: config.AUDIO_MAX_SECONDS,
  };
}

export function webPages(config: Config, dir = WEB_DIST_DIR): Router {
  const router = Router();
  const headers = pageHeaders(config);
  router.get('/config.json', (_req, res) => {
    res.set('cache-control', 'no-store').json(publicSettings(config));
  });
  router.get('/', page(dir, 'index.html', headers));
  router.get('/app{/*rest}', page(dir, join('app', 'index.html'), headers));
  const assets = express.static(dir, {
    index: false, redirect: false, fallthrough: true,
    // Vite names every built asset by its content hash: a new build is a new name.
    setHeaders: (res, path) => {
      if (path.includes(`${join(dir, 'assets')}`)) res.set('cache-control', 'public, max-age=31536000, immutable');
      if (path.endsWith('.html')) res.set(headers);
    },
  });
  router.use((req, res, next) => (req.path.startsWith('/v1/') || req.path === '/v1' ? next() : assets(req, res, next)));
  return router;
}

/** An HTML page, revalidated on every visit (it names the current build's assets); 503 when never built. */
function page(dir: string, file: string, headers: Record<string, string>): RequestHandler {
  const path = join(dir, file);
  return (req, res, next) => {
    if (!existsSync(path)) return notBuilt(res, req.originalUrl);
    res.set(headers).set('cache-control', 'no-cache');
    res.sendFile(path, (err) => { if (err && !res.headersSent) next(err); });
  };
}

function notBuilt(res: Response, instance: string): void {
  sendProblem(res, new ApiError('unavailable', 'the web pages are not built: run `npm run build:web` (npm install does it)'), instance);
}

/**
 * Where an operator's softphone connects: the instance that runs the call names its own address
 * (INSTANCE_PUBLIC_URL, `{port}` in its host meaning any port of that host).
 */
function instanceSockets(instanceUrl: string | undefined): string[] {
  if (!instanceUrl) return [];
  const anyPort = /^[a-z]+:\/\/[^/]*\{port\}/i.test(instanceUrl);
  const u = new URL(instanceUrl.replaceAll('{port}', '1'));
  const ws = u.protocol === 'https:' ? 'wss:' : 'ws:';
  return [anyPort ? `${ws}//${u.hostname}:*` : `${ws}//${u.host}`];
}

/**
 * Pages run only their own bundled scripts; they may talk to this origin and the configured API bases (HTTP
 * and WebSocket), play recordings from them and reply audio from blob: URLs, and use the microphone here only.
 */
function pageHeaders(config: Config): Record<string, string> {
  const apiOrigins = [config.PUBLIC_VOICE_API_ENDPOINT, config.SERVICE_API_BASE]
    .filter((u): u is string => !!u)
    .map((u) => new URL(u).origin);
  const unique = [...new Set(apiOrigins)];
  const connect = ["'self'", ...unique, ...unique.map((o) => o.replace(/^http/, 'ws')), ...instanceSockets(config.INSTANCE_PUBLIC_URL)].join(' ');
  const media = ["'self'", 'blob:', ...unique].join(' ');
  const csp = [
    "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", `connect-src ${connect}`,
    `media-src ${media}`, "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'",
  ].join('; ');
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'permissions-policy': 'microphone=(self), camera=(), geolocation=()',
  };
}
