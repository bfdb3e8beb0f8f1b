/**
 * The operator app in headless Chromium, against a service whose simulated calls run 20x real time: sign in,
 * place a test call to the number whose callee asks for a person, follow its transcript over the live stream,
 * accept, answer and resolve its handoff, see the KPIs move, open the call's page; an operator gets no admin
 * page; the token never appears in a URL or in browser storage.
 */
import t from 'tap';
import type { Page } from 'playwright-core';
import { api, DEV_EMAIL, DEV_PASSWORD, login, startTestServer, waitForCallEnd } from '../helpers/server.js';
import { accessibilityViolations, launch, shot, watchedPage } from './helpers/browser.js';

// A browser and a service in one file: allow more than the suite's per-file limit on a busy machine.
t.setTimeout(300_000);

const srv = await startTestServer({ env: { SIM_TIME_SCALE: '20' } });
const origin = srv.baseUrl.replace(/\/v1$/, '');
const OPERATOR = { email: 'operator@example.com', password: 'operator-password-1' };
const created = await api(srv.baseUrl, 'POST', '/users', { token: await login(srv.baseUrl), body: { ...OPERATOR, role: 'operator' } });
if (created.status !== 201) throw new Error(`operator not created: ${created.status}`);
// The call waits on hold until the operator takes it (no time-out within the test).
const held = await api(srv.baseUrl, 'PUT', '/handoffs/settings', { token: await login(srv.baseUrl), body: { hold_seconds: 3600 } });
if (held.status !== 200) throw new Error(`handoff settings not stored: ${held.status}`);
const browser = await launch();
t.teardown(async () => { await browser.close(); await srv.close(); });

async function signIn(page: Page, email: string, password: string, path = '/app') {
  await page.goto(`${origin}${path}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const kpi = (page: Page, id: string) => page.locator(`[data-kpi="${id}"]`);

t.test('an admin places a test call, follows it live, and takes over its handoff', async (t) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const { page, problems } = await watchedPage(context);
  const urls: string[] = [];
  page.on('request', (r) => urls.push(r.url()));
  page.on('websocket', (ws) => urls.push(ws.url()));

  await page.goto(`${origin}/app`);
  await shot(page, 'app-login');
  t.same(await accessibilityViolations(page), [], 'sign-in page: no serious WCAG violations');
  await signIn(page, DEV_EMAIL, DEV_PASSWORD);
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await kpi(page, 'attempted').waitFor();
  t.equal(await kpi(page, 'attempted').textContent(), '0', 'no call yet');

  // Place the call that escalates, and watch it arrive over the stream.
  await page.getByRole('navigation').getByRole('link', { name: 'Live calls' }).click();
  await page.getByLabel('Who to call').selectOption('+15005550007');
  await page.getByRole('button', { name: 'Place call' }).click();
  const watch = page.locator('section.watch');
  const lines = watch.getByTestId('transcript-line');
  await lines.filter({ hasText: 'real person' }).waitFor({ timeout: 30_000 });
  t.match(await lines.first().textContent(), /talking with an AI/, "the agent's disclosure arrives first");
  // a reply time belongs to the agent's lines: the caller did not "reply in 1 ms"
  const callerLines = await lines.filter({ hasText: 'Caller' }).allTextContents();
  t.ok(callerLines.length > 0 && callerLines.every((l) => !/replied in/.test(l)), `caller lines carry no reply time: ${JSON.stringify(callerLines)}`);
  await watch.getByTestId('escalation-alert').waitFor();
  t.match(await watch.getByTestId('escalation').textContent(), /Escalated: asked for a person/);
  await shot(page, 'app-live-call');
  t.same(await accessibilityViolations(page), [], 'live calls: no serious WCAG violations');

  // The handoff: the badge counts it; accept, reply, resolve.
  await page.getByTestId('waiting-count').filter({ hasText: '1' }).waitFor();
  await watch.getByRole('link', { name: 'Open the handoff queue' }).click();
  await page.getByRole('heading', { name: 'Handoffs' }).waitFor();
  await page.getByTestId('handoff-item').filter({ hasText: '+15005550007' }).waitFor();
  await page.getByRole('button', { name: 'Accept' }).click();
  await page.locator('#handoff-title .badge', { hasText: 'with operator' }).waitFor();
  await page.getByTestId('waiting-count').waitFor({ state: 'detached' });
  t.pass('the waiting count is gone from the navigation');
  await page.getByLabel('Your reply').fill('Hi, this is Sam from the sales team. How can I help?');
  await page.getByRole('button', { name: 'Send reply' }).click();
  await page.getByTestId('handoff-message').filter({ hasText: 'Sam from the sales team' }).waitFor();
  t.match(await page.getByTestId('handoff-message').last().textContent(), /^Operator/, 'the reply is the operator\'s');
  await shot(page, 'app-handoff-accepted');
  t.same(await accessibilityViolations(page), [], 'handoffs: no serious WCAG violations');
  await page.getByRole('button', { name: 'Resolve and close' }).click();
  await page.getByText('Nobody is waiting.').waitFor();
  const adminToken = await login(srv.baseUrl);
  const lastCall = (await api(srv.baseUrl, 'GET', '/calls?limit=1', { token: adminToken })).body.data[0];
  t.equal((await waitForCallEnd(srv.baseUrl, lastCall.id, { authorization: `Bearer ${adminToken}` })).ended_reason, 'transferred',
    'closing the handoff ends the call, transferred to the operator');
  await page.getByRole('button', { name: 'Resolved' }).click();
  await page.getByTestId('handoff-item').filter({ hasText: 'resolved' }).waitFor();

  // The figures moved.
  await page.getByRole('navigation').getByRole('link', { name: 'Overview' }).click();
  await kpi(page, 'attempted').filter({ hasText: '1' }).waitFor();
  t.equal(await kpi(page, 'connected').textContent(), '1', 'the call was answered');
  await shot(page, 'app-overview');
  t.same(await accessibilityViolations(page), [], 'overview: no serious WCAG violations');

  // The call's page: recording, transcript with the operator's reply, timeline, latency split, webhooks.
  await page.getByRole('navigation').getByRole('link', { name: 'Call history' }).click();
  await page.locator('table a').first().click();
  await page.getByRole('heading', { name: 'Call to +15005550007' }).waitFor();
  await page.getByTestId('recording').waitFor();
  t.match(await page.getByTestId('recording').getAttribute('src'), /\/v1\/recordings\/call_[0-9a-f]{24}\.wav\?expires=\d+&sig=/);
  await page.getByTestId('transcript-line').filter({ hasText: 'Sam from the sales team' }).waitFor();
  t.equal(await page.locator('ol.timeline li').count(), 4, 'queued, dialing, in progress, completed');
  t.ok(await page.getByRole('img', { name: /Reply latency by stage: turn 1: \d+ ms/ }).isVisible(), 'the latency split is drawn');
  await shot(page, 'app-call-page');
  t.same(await accessibilityViolations(page), [], 'call page: no serious WCAG violations');

  // The token stays in memory.
  const storage = await page.evaluate(() => ({ local: localStorage.length, session: sessionStorage.length, cookie: document.cookie }));
  t.same(storage, { local: 0, session: 0, cookie: '' }, 'nothing in browser storage');
  t.notOk(urls.some((u) => /access_token|eyJ/.test(u)), 'no URL carries a token');
  t.ok(urls.some((u) => u.startsWith('ws://') && u.includes('/stream?after_seq=')), 'the live stream was used');
  t.same(problems, [], 'no script errors or CSP refusals');
  await context.close();
});

t.test('an admin creates an API key and a user, each with the role chosen in the form', async (t) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const { page, problems } = await watchedPage(context);
  await signIn(page, DEV_EMAIL, DEV_PASSWORD, '/app/api-keys');
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  await page.getByLabel('Name (what uses it)').fill('crm-sync');
  await page.getByLabel('Role').selectOption('admin');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByRole('status').filter({ hasText: 'crm-sync' }).waitFor();
  t.equal(await page.locator('tr', { hasText: 'crm-sync' }).locator('td').nth(2).textContent(), 'admin', 'the key has the chosen role');

  await page.getByRole('navigation').getByRole('link', { name: 'Users' }).click();
  await page.getByRole('heading', { name: 'Users' }).waitFor();
  await page.getByLabel('Email').fill('second-admin@example.com');
  await page.getByLabel('Password (12 characters or more)').fill('second-admin-password');
  await page.getByLabel('Role').selectOption('admin');
  await page.getByRole('button', { name: 'Add user' }).click();
  t.equal(await page.getByRole('status').filter({ hasText: 'second-admin@example.com' }).textContent(), 'second-admin@example.com can now sign in as admin.');
  t.same(problems, [], 'no script errors or CSP refusals');
  await context.close();
});

t.test('an operator sees no admin page, even by its address', async (t) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const { page, problems } = await watchedPage(context);
  await signIn(page, OPERATOR.email, OPERATOR.password, '/app/api-keys');
  await page.getByRole('heading', { name: 'Administrators only' }).waitFor();
  t.equal(await page.getByRole('heading', { name: 'API keys' }).count(), 0, 'no API keys page');
  await page.getByRole('button', { name: 'Menu' }).click();
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Live calls' }).waitFor();
  for (const admin of ['API keys', 'Users', 'Integrations']) t.equal(await nav.getByRole('link', { name: admin }).count(), 0, `no ${admin} link`);
  await shot(page, 'app-operator-phone-menu');
  await nav.getByRole('link', { name: 'Handoffs' }).click();
  await page.getByRole('heading', { name: 'Handoffs' }).waitFor();
  await page.getByRole('button', { name: 'Resolved' }).click();
  await page.getByTestId('handoff-item').filter({ hasText: '+15005550007' }).waitFor();
  await page.getByTestId('handoff-message').first().waitFor();
  t.match(await page.locator('#handoff-title').textContent(), /\+15005550007\s*resolved/);
  await shot(page, 'app-operator-phone-handoffs');
  t.same(await accessibilityViolations(page), [], 'phone layout: no serious WCAG violations');
  t.same(problems, []);
  await context.close();
});
