/**
 * The two-way demo handoff in headless Chromium: a visitor on the public site asks for a person; an operator in the
 * app (same browser, another context) accepts, and the two chat in both directions, each page showing the other's
 * messages as they come; the operator hands the conversation back to the agent, which answers the visitor again.
 */
import t from 'tap';
import { api, login, startTestServer } from '../helpers/server.js';
import { accessibilityViolations, launch, shot, watchedPage } from './helpers/browser.js';

// A browser and a service in one file: allow more than the suite's per-file limit on a busy machine.
t.setTimeout(300_000);

const srv = await startTestServer();
const origin = srv.baseUrl.replace(/\/v1$/, '');
const OPERATOR = { email: 'chat-operator@example.com', password: 'operator-password-1' };
const created = await api(srv.baseUrl, 'POST', '/users', { token: await login(srv.baseUrl), body: { ...OPERATOR, role: 'operator' } });
if (created.status !== 201) throw new Error(`operator not created: ${created.status}`);
const browser = await launch();
t.teardown(async () => { await browser.close(); await srv.close(); });

t.test('a visitor and an operator chat both ways; the operator hands back to the agent', async (t) => {
  const visitorContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const operatorContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const visitor = await watchedPage(visitorContext);
  const operator = await watchedPage(operatorContext);
  const site = visitor.page, app = operator.page;
  const say = async (text: string) => {
    await site.getByLabel('Your message').fill(text);
    await site.getByRole('button', { name: 'Send', exact: true }).click();
  };

  // The visitor asks for a person: the site says so and keeps the composer open.
  await site.goto(`${origin}/`);
  await say('Hi, my name is Anita Rao');
  await site.locator('.msg.agent').first().waitFor();
  await say('I want to speak to a human');
  await site.getByTestId('handoff-notice').and(site.locator('[data-state="waiting"]')).waitFor();
  await say('I am looking for a 2BHK in Pune');
  await site.getByText('I am looking for a 2BHK in Pune').waitFor();
  t.equal(await site.locator('.msg.agent').count(), 2, 'the agent does not answer a message meant for a person');

  // The operator signs in, finds it waiting (with how long) and accepts.
  await app.goto(`${origin}/app/handoffs`);
  await app.getByLabel('Email').fill(OPERATOR.email);
  await app.getByLabel('Password').fill(OPERATOR.password);
  await app.getByRole('button', { name: 'Sign in' }).click();
  await app.getByRole('heading', { name: 'Handoffs' }).waitFor();
  const item = app.getByTestId('handoff-item').filter({ hasText: 'Web conversation' });
  await item.getByTestId('waiting-for').waitFor();
  t.match(await item.getByTestId('waiting-for').textContent(), /^waiting \d+ s$/, 'the queue shows how long it waits');
  await item.click();
  const messages = app.getByTestId('handoff-message');
  await messages.filter({ hasText: 'I am looking for a 2BHK in Pune' }).waitFor();
  t.pass('what the visitor wrote while waiting reached the operator');
  await app.getByRole('button', { name: 'Accept' }).click();
  await app.locator('#handoff-title .badge', { hasText: 'with operator' }).waitFor();
  await site.getByTestId('handoff-notice').and(site.locator('[data-state="with_operator"]')).waitFor();
  t.pass('the visitor sees that a person joined');

  // Both ways, live on both pages.
  await app.getByLabel('Your reply').fill('Hello Anita, this is Sam from the sales team.');
  await app.getByRole('button', { name: 'Send reply' }).click();
  await site.locator('.msg.operator', { hasText: 'this is Sam from the sales team' }).waitFor();
  t.match(await site.locator('.msg.operator').first().textContent(), /^Person from the team/, 'shown as a person, not the AI');
  await say('Great, what is available under 80 lakh?');
  await messages.filter({ hasText: 'available under 80 lakh' }).waitFor();
  t.match(await messages.last().textContent(), /^Caller/, "the visitor's answer is in the operator's view");
  await app.getByLabel('Your reply').fill('Two options; I will send them by message.');
  await app.getByRole('button', { name: 'Send reply' }).click();
  await site.locator('.msg.operator', { hasText: 'Two options' }).waitFor();
  await shot(site, 'site-handoff-chat');
  await shot(app, 'app-handoff-chat');
  t.same(await accessibilityViolations(site), [], 'site during a handoff: no serious WCAG violations');
  t.same(await accessibilityViolations(app), [], 'handoff chat: no serious WCAG violations');

  // The operator hands back to the agent; the agent answers the visitor's next message.
  await app.getByRole('button', { name: 'Hand back to the agent' }).click();
  await site.getByTestId('handoff-notice').and(site.locator('[data-state="resolved"]')).waitFor();
  await say('Thanks. My budget is 80 lakh');
  await site.locator('.msg.agent').nth(2).waitFor();
  t.equal(await site.locator('.msg.operator').count(), 2, 'each operator message shown once');
  const view = await api(srv.baseUrl, 'GET', '/handoffs?handoff_state=resolved', { token: await login(srv.baseUrl) });
  t.match(view.body.data[0], { resolution: 'agent', handoff_state: 'resolved' });
  t.same(visitor.problems, [], 'site: no script errors or CSP refusals');
  t.same(operator.problems, [], 'app: no script errors or CSP refusals');
  await visitorContext.close();
  await operatorContext.close();
});
