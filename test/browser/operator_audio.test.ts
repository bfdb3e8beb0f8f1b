/**
 * An operator takes a call from the app in headless Chromium and talks on it with a fake microphone (a WAV of human
 * speech): the caller (a browser leg driven from Node, so everything it hears is kept) waits on hold, the operator
 * accepts and joins the audio, the caller hears the operator's voice, the operator's turn is a live item of speaker
 * operator, the operator hands the call back to the agent, and the recording holds the agent, the caller and the
 * operator.
 */
import t from 'tap';
import { api, login, startTestServer, waitForCallEnd } from '../helpers/server.js';
import { accessibilityViolations, fakeMicrophone, FIXTURE_WAV, launch, shot, watchedPage } from './helpers/browser.js';
import { callerOnHold, heardBy, isItem, recordingChannels, rms, span, speechLike, utterance } from '../handoffs/helpers/operator_call.js';

t.setTimeout(300_000);

const srv = await startTestServer({ env: { SIM_TIME_SCALE: '1' } });
const b = srv.baseUrl;
const origin = b.replace(/\/v1$/, '');
const admin = await login(b);
const OPERATOR = { email: 'audio-operator@example.com', password: 'operator-password-1' };
const created = await api(b, 'POST', '/users', { token: admin, body: { ...OPERATOR, role: 'operator' } });
if (created.status !== 201) throw new Error(`operator not created: ${created.status}`);
const operatorId = created.body.id as string;
await api(b, 'PUT', '/handoffs/settings', { token: admin, body: { hold_seconds: 3600 } });
const browser = await launch(fakeMicrophone(FIXTURE_WAV));
t.teardown(async () => { await browser.close(); await srv.close(); });

t.test('the operator joins the call\'s audio from the app, is heard and recorded, and hands back', async (t) => {
  const call = await callerOnHold(b, admin, srv.services.db);
  // the caller speaks while waiting: their words are recorded for the operator
  await call.caller.say(utterance.subarray(0, 16_000 * 3));

  const { page: app, problems } = await watchedPage(await browser.newContext({ viewport: { width: 1280, height: 900 } }));
  await app.goto(`${origin}/app/handoffs`);
  await app.getByLabel('Email').fill(OPERATOR.email);
  await app.getByLabel('Password').fill(OPERATOR.password);
  await app.getByRole('button', { name: 'Sign in' }).click();
  const waiting = app.getByTestId('handoff-item').filter({ has: app.getByTestId('waiting-for') });
  await waiting.first().waitFor();
  t.match(await waiting.first().getByTestId('waiting-for').textContent(), /^waiting \d+ s$/, 'the queue shows how long the call waits');
  await waiting.first().click();
  await app.getByRole('button', { name: 'Accept' }).click();
  await app.getByRole('button', { name: 'Join audio' }).click();
  await app.getByTestId('audio-joined').waitFor();
  const joinedAt = call.caller.messages.length;
  t.same(await accessibilityViolations(app), [], 'no serious accessibility violations with the softphone on');
  await shot(app, 'app-operator-audio');

  // the fake microphone speaks: the caller hears it, and the operator's turn is on the call's live items
  const turn = await call.caller.next((m) => isItem(m, 'transcript', 'operator') && m.item.audio, 'the operator\'s spoken turn', 60_000);
  const heard = speechLike(heardBy(call.caller, joinedAt), 8000);
  t.ok(heard.ok, `the caller heard speech-like audio from the operator (${JSON.stringify(heard)})`);
  t.ok(turn.item.audio.duration_ms >= 1000, `a turn of the operator's words (${JSON.stringify(turn.item)})`);
  const spoken = (await srv.services.db.query<{ text: string; meta: Record<string, unknown> }>(
    "SELECT text, meta FROM conversation_messages WHERE conversation_id = $1 AND role = 'operator'", [call.conv])).rows;
  t.equal(spoken[0]?.meta.by, operatorId, 'stored as this operator\'s turn');
  await app.getByTestId('handoff-message').filter({ hasText: spoken[0]?.text || '(spoken; not transcribed)' }).first().waitFor();
  t.pass('the app shows the turn (its words, or that it was not transcribed)');

  // hand back: the agent speaks to the caller again; the app's audio ends
  await app.getByRole('button', { name: 'Hand back to the agent' }).click();
  await call.caller.next((m) => isItem(m, 'transcript', 'agent') && /AI assistant again/.test(m.item.text), 'the agent is back');
  await app.getByTestId('audio-joined').waitFor({ state: 'detached' });
  t.pass('the softphone left the call');
  t.same(problems, [], 'no page errors');

  call.caller.send({ event: 'stop' });
  const ended = await waitForCallEnd(b, call.id, { authorization: `Bearer ${admin}` });
  const { caller, ours } = recordingChannels(Buffer.from(await (await fetch(ended.recording_url)).arrayBuffer()));
  const o = turn.item.audio;
  t.ok(speechLike(span(ours, o.offset_ms, o.offset_ms + o.duration_ms), 8000).ok, 'the recording: the operator\'s voice where the turn says');
  t.ok(rms(span(ours, 0, 3000)) > 100, 'the recording: the agent (its disclosure) first');
  t.ok(speechLike(caller, 8000).ok, 'the recording: the caller');
});
