/**
 * How the service serves the pages: / and /app/… as HTML with a strict Content-Security-Policy, hashed assets
 * cached for good, /config.json with the run-time API bases, API 404s still problem+json, and a clear 503
 * when the pages were never built. The two settings are validated at start-up like every other key.
 */
import t from 'tap';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.js';
import { webPages } from '../../src/api/web_pages.js';
import { startTestServer } from '../helpers/server.js';
import { ensureWebBuild } from './helpers/browser.js';

// Two services (two embedded databases) in one file: allow more than the suite's per-file limit on a busy machine.
t.setTimeout(300_000);

ensureWebBuild();
const srv = await startTestServer({ env: { PUBLIC_VOICE_API_ENDPOINT: 'https://api.example.com/v1/', SERVICE_API_BASE: 'https://ops.example.com/v1',
  INSTANCE_PUBLIC_URL: 'https://voice.example.com/i/a/v1' } });
t.teardown(() => srv.close());
const origin = srv.baseUrl.replace(/\/v1$/, '');

t.test('the site and every app path answer their page, with security headers', async (t) => {
  const site = await fetch(`${origin}/`);
  t.equal(site.status, 200);
  t.match(site.headers.get('content-type'), /^text\/html/);
  t.match(await site.text(), /<div id="root">/);
  for (const path of ['/app', '/app/', '/app/calls/call_0123', '/app/handoffs?x=1']) {
    const r = await fetch(origin + path);
    t.equal(r.status, 200, path);
    t.match(await r.text(), /voicecall · operator/, `${path} is the app`);
  }
  const csp = site.headers.get('content-security-policy') ?? '';
  t.match(csp, /script-src 'self'(;|$)/, 'only our own scripts');
  t.match(csp, /connect-src 'self' https:\/\/api\.example\.com https:\/\/ops\.example\.com wss:\/\/api\.example\.com wss:\/\/ops\.example\.com/, 'the configured API origins, HTTP and WebSocket');
  t.match(csp, /connect-src [^;]* wss:\/\/voice\.example\.com(;| )/, "this instance's own address: an operator's softphone connects there");
  t.match(csp, /media-src 'self' blob:/);
  t.match(csp, /frame-ancestors 'none'/);
  t.equal(site.headers.get('x-content-type-options'), 'nosniff');
  t.equal(site.headers.get('cache-control'), 'no-cache', 'pages are revalidated (they name the current build)');
  t.match(site.headers.get('permissions-policy'), /microphone=\(self\)/);
});

t.test('assets are served and cached for good; unknown paths and /v1 stay problem+json', async (t) => {
  const html = await (await fetch(`${origin}/`)).text();
  const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
  const r = await fetch(origin + asset);
  t.equal(r.status, 200);
  t.match(r.headers.get('content-type'), /javascript/);
  t.equal(r.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  for (const path of ['/assets/missing.js', '/nothing', '/v1/nothing', '/v1', '/v1/index.html']) {
    const miss = await fetch(origin + path);
    t.equal(miss.status, 404, path);
    t.match(miss.headers.get('content-type'), /application\/problem\+json/, path);
    t.equal((await miss.json()).code, 'not_found', path);
  }
  t.equal((await fetch(`${origin}/v1/health`)).status, 200, 'the API is untouched');
});

t.test('/config.json carries the configured API bases, uncached', async (t) => {
  const r = await fetch(`${origin}/config.json`);
  t.equal(r.headers.get('cache-control'), 'no-store');
  t.same(await r.json(), { public_voice_api_endpoint: 'https://api.example.com/v1', service_api_base: 'https://ops.example.com/v1', service_mode: 'simulator', audio_max_seconds: 60 });
});

t.test('unset, both are null: the pages use their own origin', async (t) => {
  const plain = await startTestServer();
  t.teardown(() => plain.close());
  const r = await fetch(plain.baseUrl.replace(/\/v1$/, '/config.json'));
  t.match(await r.json(), { public_voice_api_endpoint: null, service_api_base: null });
});

t.test('pages that were never built answer 503 problem+json saying how to build them', async (t) => {
  const empty = mkdtempSync(join(tmpdir(), 'voicecall-empty-'));
  t.teardown(() => rmSync(empty, { recursive: true, force: true }));
  const app = express().use(webPages(loadConfig({}), empty));
  const server = app.listen(0, '127.0.0.1');
  t.teardown(() => server.close());
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const path of ['/', '/app/live']) {
    const r = await fetch(base + path);
    t.equal(r.status, 503, path);
    t.match(await r.json(), { code: 'unavailable', detail: /npm run build:web/ });
  }
});

t.test('the settings must be http(s) bases ending in /v1, without credentials', async (t) => {
  for (const key of ['PUBLIC_VOICE_API_ENDPOINT', 'SERVICE_API_BASE'] as const) {
    for (const bad of ['api.example.com/v1', 'ftp://x.example/v1', 'https://x.example/api', 'https://user:pw@x.example/v1', 'javascript:alert(1)//v1']) {
      t.throws(() => loadConfig({ [key]: bad }), ConfigError, `${key}=${bad}`);
      try { loadConfig({ [key]: bad }); } catch (e) { t.match((e as Error).message, key); }
    }
    t.equal(loadConfig({ [key]: 'https://x.example/voice/v1/' })[key], 'https://x.example/voice/v1', 'a trailing slash is dropped');
  }
});
