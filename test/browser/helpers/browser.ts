/**
 * Headless Debian Chromium driven by playwright-core for the page tests. The pages must be built
 * (`npm run build:web`, which npm install runs); a missing build is made once here. Screenshots go to
 * test/browser/screenshots/ (git-ignored). Every page is watched for script errors and CSP refusals.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { WEB_DIST_DIR } from '../../../src/api/web_pages.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const SHOTS = fileURLToPath(new URL('../screenshots/', import.meta.url));
export const FIXTURE_WAV = fileURLToPath(new URL('../fixtures/d01_clean_t0.16k.wav', import.meta.url));

/** Chromium's flags here: no sandbox (root in CI), no GPU, and no calls home (the network is closed). */
const BASE_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-quic'];

/** A fake microphone that plays a WAV file (once, then silence; or over and over) and grants itself without a prompt. */
export const fakeMicrophone = (wav: string, o: { loop?: boolean } = {}) => ['--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${wav}${o.loop ? '' : '%noloop'}`];

export function ensureWebBuild(): void {
  if (existsSync(`${WEB_DIST_DIR}/index.html`) && existsSync(`${WEB_DIST_DIR}/app/index.html`)) return;
  execFileSync('npm', ['run', 'build:web'], { cwd: ROOT, stdio: 'inherit' });
}

export async function launch(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does it)`);
  ensureWebBuild();
  mkdirSync(SHOTS, { recursive: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...BASE_ARGS, ...extraArgs] });
  // tsx (esbuild, keepNames) wraps the tests' own functions in __name(); those the tests hand to a page run there
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (o) => {
    const context = await newContext(o);
    await context.addInitScript({ content: 'globalThis.__name = (f) => f;' });
    return context;
  };
  return browser;
}

export interface Watched { page: Page; problems: string[] }

/** A page whose uncaught errors and CSP refusals are collected (a test asserts the list stays empty). */
export async function watchedPage(context: BrowserContext): Promise<Watched> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(`CSP: ${m.text()}`);
  });
  return { page, problems };
}

export async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** WCAG 2 A/AA violations axe-core finds on the page as it is now (serious and critical ones). */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  // colours mid-transition (Pico fades a link's colours as it becomes the current page) are not the page's contrast
  await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))));
  // evaluate() runs through the DevTools protocol, which the page's CSP does not restrict.
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    return axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}
