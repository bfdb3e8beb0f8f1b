/**
 * Issue 33 in the operator app: a conversation that went to the handoff queue and was closed shows its summary
 * (who, what they want, next step) and who wrote it, on the handoff's page, in headless Chromium.
 */
import t from 'tap';
import { api, DEV_EMAIL, DEV_PASSWORD, login, startTestServer } from '../helpers/server.js';
import { accessibilityViolations, launch, shot, watchedPage } from './helpers/browser.js';

// A browser and a service in one file: allow more than the suite's per-file limit on a busy machine.
t.setTimeout(300_000);

const srv = await startTestServer();
const origin = srv.baseUrl.replace(/\/v1$/, '');
const token = await login(srv.baseUrl);
const browser = await launch();
t.teardown(async () => { await browser.close(); await srv.close(); });

t.test('a closed handoff shows the conversation\'s summary and its source', async (t) => {
  const c = await api(srv.baseUrl, 'POST', '/conversations', { token, body: {} });
  for (const text of ['My name is Ravi', 'I want a villa', 'Can I talk to a real person please']) {
    t.equal((await api(srv.baseUrl, 'POST', `/conversations/${c.body.id}/turns`, { token, body: { text } })).status, 200, text);
  }
  t.equal((await api(srv.baseUrl, 'POST', `/handoffs/${c.body.id}/accept`, { token })).status, 200);
  t.equal((await api(srv.baseUrl, 'POST', `/handoffs/${c.body.id}/resolve`, { token, body: { then: 'close' } })).status, 200);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const { page, problems } = await watchedPage(context);
  await page.goto(`${origin}/app/handoffs`);
  await page.getByLabel('Email').fill(DEV_EMAIL);
  await page.getByLabel('Password').fill(DEV_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Handoffs' }).waitFor();
  await page.getByRole('button', { name: 'Resolved' }).click();
  await page.getByTestId('handoff-item').first().click();
  const summary = page.getByTestId('conversation-summary');
  await summary.waitFor();
  t.match(await summary.textContent(), /Ravi is looking for a villa\. Budget not given\. Next step: a colleague follows up/);
  t.match(await summary.textContent(), /Built from the fields the agent gathered\./);
  await shot(page, 'app-handoff-summary');
  t.same(await accessibilityViolations(page), [], 'no serious WCAG violations');
  t.same(problems, [], 'no page errors');
  await context.close();
});
