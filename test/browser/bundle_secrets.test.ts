/**
 * No secret reaches the browser: the pages are built with every provider, carrier and service secret set to a
 * unique marker in the environment (also under the prefixes bundlers expose), and neither the built files nor
 * anything the service sends a browser (pages, assets, /config.json) contains one of those markers.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../helpers/server.js';

// A Vite build and a service in one file: allow more than the suite's per-file limit on a busy machine.
t.setTimeout(300_000);

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const SECRET_KEYS = [
  'TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_API_KEY', 'TWILIO_API_SECRET',
  'PLIVO_AUTH_ID', 'PLIVO_AUTH_TOKEN', 'EXOTEL_SID', 'EXOTEL_API_KEY', 'EXOTEL_API_TOKEN',
  'DEEPGRAM_API_KEY', 'OPENAI_API_KEY', 'ELEVENLABS_API_KEY', 'CARTESIA_API_KEY', 'HUBSPOT_API_KEY', 'CALCOM_API_KEY',
  'WHATSAPP_API_TOKEN', 'WHATSAPP_PHONE_NUMBER_ID', 'SERVICE_JWT_SECRET', 'SERVICE_API_KEY', 'SERVICE_WEBHOOK_SECRET',
  'SERVICE_DEV_PASSWORD',
];
/** The prefixes Vite and other bundlers expose to client code, and the one our Vite config names. */
const EXPOSED_PREFIXES = ['', 'VITE_', 'PUBLIC_', 'VOICECALL_WEB_BUILD_'];

const markers: Record<string, string> = {};
for (const key of SECRET_KEYS) {
  for (const prefix of EXPOSED_PREFIXES) markers[`${prefix}${key}`] = `mk${Math.random().toString(36).slice(2, 12)}${key.toLowerCase().replace(/_/g, '')}0123456789abcdefghij`;
}
const values = Object.values(markers);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Markers found in a text, as they are or URL- or base64-encoded. */
const leaks = (text: string) => values.filter((v) => text.includes(v) || text.includes(encodeURIComponent(v)) || text.includes(Buffer.from(v).toString('base64').slice(0, 40)));

t.test('the leak check itself finds a planted marker', async (t) => {
  t.same(leaks(`const x = "${values[3]}";`), [values[3]]);
  t.same(leaks(Buffer.from(values[5]!).toString('base64')), [values[5]]);
  t.same(leaks('nothing here'), []);
});

t.test('a build with every secret in the environment contains none of them', async (t) => {
  const out = mkdtempSync(join(tmpdir(), 'voicecall-web-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  await promisify(execFile)(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts', '--outDir', out, '--emptyOutDir', '--logLevel', 'warn'],
    { cwd: ROOT, env: { ...process.env, ...markers } });
  const files = filesUnder(out);
  t.ok(files.some((f) => f.endsWith('index.html')) && files.some((f) => f.endsWith(join('app', 'index.html'))), 'both pages were built');
  t.ok(files.filter((f) => f.endsWith('.js')).length >= 2, 'scripts were built');
  for (const f of files) t.same(leaks(readFileSync(f, 'latin1')), [], f.slice(out.length));
  writeFileSync(join(out, 'planted.js'), values[0]!);
  t.same(leaks(readFileSync(join(out, 'planted.js'), 'latin1')), [values[0]], 'a planted marker in the output is found');
});

t.test('the service sends browsers none of its secrets: pages, assets, /config.json', async (t) => {
  // Keys the configuration reads are set to markers too (its own validation passes on them).
  const env = Object.fromEntries(SECRET_KEYS.map((k) => [k, markers[k]]));
  const srv = await startTestServer({ env });
  t.teardown(() => srv.close());
  const origin = srv.baseUrl.replace(/\/v1$/, '');
  t.equal(srv.config.OPENAI_API_KEY, markers.OPENAI_API_KEY, 'the service did load the markers');
  const seen = new Set<string>();
  const queue = ['/', '/app', '/app/calls/call_000000000000000000000000', '/config.json', '/favicon.svg'];
  while (queue.length) {
    const path = queue.shift()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const res = await fetch(origin + path);
    t.equal(res.status, 200, path);
    const body = await res.text();
    t.same(leaks(body + JSON.stringify([...res.headers])), [], path);
    for (const m of body.matchAll(/(?:src|href)="(\/[^"]+)"/g)) queue.push(m[1]!);
    for (const m of body.matchAll(/"(\/assets\/[^"]+\.(?:js|css))"/g)) queue.push(m[1]!);
  }
  t.ok([...seen].filter((p) => p.startsWith('/assets/')).length >= 3, `the assets were fetched too (${seen.size} paths)`);
  const settings = await (await fetch(`${origin}/config.json`)).json();
  t.same(Object.keys(settings).sort(), ['audio_max_seconds', 'public_voice_api_endpoint', 'service_api_base', 'service_mode'], 'only the public settings');
});
