/**
 * "Call the agent" in headless Chromium, with a fake microphone playing a corpus WAV: the page opens a real call
 * over the browser leg, plays the agent's audio (frames received and milliseconds played through Web Audio are
 * shown on the page), shows the call's transcript live, and hangs up; the call is then stored like a phone call.
 * What the agent says is not asserted, so this holds for any voice and speech-to-text.
 */
import t from 'tap';
import { api, login, startTestServer } from '../helpers/server.js';
import { accessibilityViolations, fakeMicrophone, FIXTURE_WAV, launch, shot, watchedPage } from './helpers/browser.js';

t.setTimeout(300_000);

const srv = await startTestServer({ env: { SIM_SPEECH: 'offline' } }); // the embedded default: a person hears the offline voice
const origin = srv.baseUrl.replace(/\/v1$/, '');
const browser = await launch(fakeMicrophone(FIXTURE_WAV));
t.teardown(async () => { await browser.close(); await srv.close(); });

const count = async (page: import('playwright-core').Page, id: string) => Number(await page.getByTestId(id).textContent());

t.test('a visitor calls the agent, hears it, reads the transcript and hangs up', async (t) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['microphone'], { origin });
  const { page, problems } = await watchedPage(context);
  await page.goto(`${origin}/`);
  await page.getByRole('button', { name: 'Call the agent' }).click();
  await page.getByRole('status').filter({ hasText: /On a call/ }).waitFor({ timeout: 30_000 });

  // the agent's audio arrives and plays through Web Audio
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="call-played-ms"]')?.textContent) >= 500,
    undefined, { timeout: 60_000, polling: 100 });
  t.ok(await count(page, 'call-frames') >= 25, 'agent audio frames were received');
  // the transcript of the call, live: the disclosure first
  const agentLine = page.locator('.msg.agent', { hasText: 'call' });
  await agentLine.first().waitFor({ timeout: 60_000 });
  t.match(await agentLine.first().locator('.who').textContent(), /Agent \(AI\) · call/, 'shown as the call\'s');
  t.ok((await agentLine.first().locator('.text').textContent())?.trim(), 'with its words');
  t.ok(await page.getByRole('button', { name: 'Send', exact: true }).isDisabled(), 'typing waits while the call lasts');
  await shot(page, 'site-call');
  t.same(await accessibilityViolations(page), [], 'no serious WCAG violations during the call');

  await page.getByRole('button', { name: 'Hang up' }).click();
  await page.getByRole('status').filter({ hasText: 'The call has ended.' }).waitFor();
  t.ok(await page.getByRole('button', { name: 'Call the agent' }).isEnabled(), 'a new call can be made');
  t.same(problems, [], 'no script errors or CSP refusals');
  await context.close();

  // the call as the demo tenant sees it
  const admin = await login(srv.baseUrl);
  let call: { status: string; ended_reason: string; to: string; recording_url: string | null } | undefined;
  for (;;) {
    const list = await api(srv.baseUrl, 'GET', '/calls?limit=5', { token: admin });
    call = (list.body.data as Array<typeof call & { to: string }>).find((c) => c!.to === 'browser');
    if (call && !['ringing', 'in_progress'].includes(call.status)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.match(call, { status: 'completed', ended_reason: 'caller_hangup', to: 'browser' }, 'the hang-up ended the call');
  t.ok(call?.recording_url, 'recorded');
});

t.test('without AudioWorklet the page records and plays through a ScriptProcessor', async (t) => {
  const context = await browser.newContext();
  await context.grantPermissions(['microphone'], { origin });
  // a browser without worklets (older ones, some embedded views)
  await context.addInitScript(() => Object.defineProperty(BaseAudioContext.prototype, 'audioWorklet', { get: () => undefined }));
  const { page, problems } = await watchedPage(context);
  await page.goto(`${origin}/`);
  await page.getByRole('button', { name: 'Call the agent' }).click();
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="call-played-ms"]')?.textContent) >= 500,
    undefined, { timeout: 60_000, polling: 100 });
  t.ok(await count(page, 'call-frames') >= 25, 'agent audio frames were received and played');
  await page.locator('.msg.agent', { hasText: 'call' }).first().waitFor({ timeout: 60_000 });
  await page.getByRole('button', { name: 'Hang up' }).click();
  await page.getByRole('status').filter({ hasText: 'The call has ended.' }).waitFor();
  t.same(problems, [], 'no script errors');
  await context.close();
});
