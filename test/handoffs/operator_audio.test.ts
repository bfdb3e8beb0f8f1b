/**
 * An operator joins a call's audio from a softphone (the browser leg protocol on /v1/media/operator), driven from
 * Node: the caller hears the operator's voice, the operator hears the caller, the recording holds the agent, the
 * caller and the operator, the operator's turn is a transcript item of speaker operator (with its place in the
 * recording), and handing back closes the operator's leg while the agent speaks again. Then who may join: the
 * ticket route's auth and states, and the socket's refusals.
 */
import { PassThrough } from 'node:stream';
import t from 'tap';
import { api, API_KEY, login, startTestServer, waitForCallEnd } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';
import { userToken } from '../helpers/lead_fixtures.js';
import { waitFor } from '../providers/live_env.js';
import { openLeg } from '../carriers/helpers/browser_leg.js';
import { callerOnHold, heardBy, isItem, recordingChannels, rms, span, speechLike, utterance } from './helpers/operator_call.js';

// real-time calls (the operator's voice is real speech at its own pace): more than the suite's per-file limit on a busy machine
t.setTimeout(300_000);

const logLines: string[] = [];
const logSink = new PassThrough();
logSink.on('data', (c: Buffer) => logLines.push(c.toString()));
const srv = await startTestServer({ env: { SIM_TIME_SCALE: '1', LOG_LEVEL: 'debug' }, logStream: logSink });
/** every operator ticket handed out: none may reach the log */
const tickets: string[] = [];
t.teardown(() => srv.close());
const b = srv.baseUrl;
const admin = await login(b);
const sub = JSON.parse(Buffer.from(admin.split('.')[1], 'base64url').toString()).sub as string;
const db = srv.services.db;
t.equal((await api(b, 'PUT', '/handoffs/settings', { token: admin, body: { hold_seconds: 3600 } })).status, 200);

const startMsg = (callId: string, token: string) => ({ event: 'start', call_id: callId, token, media_format: { encoding: 'pcm16', sample_rate: 16_000 } });

t.test('the operator is heard by the caller and recorded; the operator hears the caller; hand back', async (t) => {
  const call = await callerOnHold(b, admin, db);
  t.equal((await api(b, 'POST', `/handoffs/${call.conv}/accept`, { token: admin })).status, 200);
  const ticket = await api(b, 'POST', `/handoffs/${call.conv}/audio`, { token: admin });
  t.equal(ticket.status, 200, ticket.body.detail);
  tickets.push(ticket.body.token);
  t.match(ticket.body, { call_id: call.id, media_url: /^ws:\/\/127\.0\.0\.1:\d+\/v1\/media\/operator$/, token: /^\d+\.[\w-]+\.[\w-]+$/, token_expires_in: 60 });
  const op = await openLeg(ticket.body.media_url);
  op.send(startMsg(call.id, ticket.body.token));
  t.match(await op.next((m) => m.event === 'started', 'started'), { call_id: call.id, media_format: { encoding: 'pcm16', sample_rate: 8000 } });
  op.microphone(16_000, 20);
  const joinedAt = call.caller.messages.length;
  // the caller speaks a little while the operator listens, then the operator speaks
  const callerSaid = call.caller.say(utterance.subarray(0, 16_000 * 3));
  await op.next((m) => m.event === 'media' && rms(new Int16Array(Buffer.from(m.payload, 'base64').buffer.slice(0))) > 500, 'the caller\'s voice at the operator');
  await callerSaid;
  await op.say(utterance);
  const turn = await call.caller.next((m) => isItem(m, 'transcript', 'operator'), 'the operator\'s turn on the live stream');
  t.match(turn.item, { speaker: 'operator', audio: { offset_ms: Number, duration_ms: Number } }, 'a turn of speaker operator, placed in the recording');
  t.ok(turn.item.audio.duration_ms >= 3000, `the turn lasts about as long as the words (${turn.item.audio.duration_ms} ms)`);
  const heard = speechLike(heardBy(call.caller, joinedAt), 8000);
  t.ok(heard.ok, `the caller heard speech-like audio from the operator (${JSON.stringify(heard)})`);
  const msgs = (await db.query<{ role: string; text: string; meta: Record<string, unknown> }>(
    'SELECT role, text, meta FROM conversation_messages WHERE conversation_id = $1 ORDER BY id', [call.conv])).rows;
  const spoken = msgs.find((m) => m.role === 'operator' && m.meta.spoken === true);
  t.ok(spoken, 'the turn is in the conversation, as the operator\'s');
  t.equal(spoken!.meta.by, sub);
  if (!spoken!.text) t.equal(spoken!.meta.audio_only, true, 'not recognised: kept as an audio-only turn, no text made up');

  // a typed reply is spoken in the agent's voice: the operator hears it too (the caller is quiet now)
  const opFrom = op.messages.length;
  t.equal((await api(b, 'POST', `/handoffs/${call.conv}/reply`, { token: admin, body: { text: 'Let me check that for you, one moment please.' } })).status, 200);
  const echo = await waitFor('the spoken reply at the operator', () => {
    const pcm = heardBy(op, opFrom);
    return pcm.length >= 8000 * 2 && speechLike(pcm, 8000).ok ? pcm : undefined;
  }, 60_000);
  t.ok(rms(echo) > 100, `the operator hears the agent speak the typed reply (rms ${rms(echo).toFixed(0)})`);

  // hand back: the operator's leg closes, the agent speaks again
  t.equal((await api(b, 'POST', `/handoffs/${call.conv}/resolve`, { token: admin, body: { then: 'agent' } })).status, 200);
  t.match(await op.closed, { code: 1000 }, 'the operator\'s leg closes');
  await call.caller.next((m) => isItem(m, 'transcript', 'agent') && /AI assistant again/.test(m.item.text), 'the agent is back');
  call.caller.send({ event: 'stop' });
  const ended = await waitForCallEnd(b, call.id, { authorization: `Bearer ${admin}` });
  t.equal(ended.ended_reason, 'caller_hangup');
  const { caller, ours } = recordingChannels(Buffer.from(await (await fetch(ended.recording_url)).arrayBuffer()));
  const o = turn.item.audio;
  const operatorPart = speechLike(span(ours, o.offset_ms, o.offset_ms + o.duration_ms), 8000);
  t.ok(operatorPart.ok, `channel 2 holds the operator's voice where its turn says (${JSON.stringify(operatorPart)})`);
  t.ok(rms(span(ours, 0, o.offset_ms - 4000)) > 100, 'and the agent before it (disclosure, hold message)');
  t.ok(speechLike(caller, 8000).ok, 'channel 1 holds the caller');
});

t.test('who may join a call\'s audio, and when', async (t) => {
  const call = await callerOnHold(b, admin, db);
  const other = await makeTenant(srv, 'softphone');
  const colleague = await userToken(srv, 'ten_dev', 'colleague@softphone.test', 'operator');
  const audio = (token: string | undefined, headers?: Record<string, string>) => api(b, 'POST', `/handoffs/${call.conv}/audio`, { token, headers });
  t.match(await audio(admin), { status: 409, body: { code: 'conflict' } }, 'waiting: nobody has taken it');
  t.equal((await api(b, 'POST', `/handoffs/${call.conv}/accept`, { token: admin })).status, 200);
  t.match(await audio(other.adminToken), { status: 404, body: { code: 'not_found' } }, 'another tenant: no such handoff');
  t.match(await audio(colleague), { status: 403, body: { code: 'forbidden' } }, 'another operator of the tenant');
  t.match(await audio(undefined, { 'x-api-key': API_KEY }), { status: 401 }, 'a service key: not a person with a microphone');
  t.match(await audio(undefined), { status: 401 });

  // the socket: only an operator ticket of this call, once
  const ticket = (await audio(admin)).body;
  tickets.push(ticket.token);
  const callerTicket = await api(b, 'POST', '/browser-calls', { token: admin, body: {} });
  let leg = await openLeg(ticket.media_url);
  leg.send(startMsg(callerTicket.body.call.id, callerTicket.body.token));
  t.match(await leg.closed, { code: 1008, reason: 'not authorized for this call' }, 'a caller\'s media token is no operator ticket');
  await api(b, 'POST', `/calls/${callerTicket.body.call.id}/hangup`, { token: admin });
  leg = await openLeg(ticket.media_url);
  leg.send(startMsg(call.id, 'garbage.token.value'));
  t.match(await leg.closed, { code: 1008, reason: 'not authorized for this call' }, 'a made-up token');
  leg = await openLeg(ticket.media_url);
  leg.send(startMsg(call.id, ticket.token));
  await leg.next((m) => m.event === 'started', 'started');
  t.match(await audio(admin), { status: 409 }, 'joined already: no second ticket');
  const again = await openLeg(ticket.media_url);
  again.send(startMsg(call.id, ticket.token));
  t.match(await again.closed, { code: 1008 }, 'a ticket is good once');
  // leaving the audio does not end the call: the operator can join again
  leg.ws.close();
  await leg.closed;
  const rejoin = await waitFor('a new ticket', async () => { const r = await audio(admin); return r.status === 200 ? r.body : undefined; });
  tickets.push(rejoin.token);
  t.match((await api(b, 'GET', `/calls/${call.id}`, { token: admin })).body, { status: 'in_progress' });

  // the call ends: no ticket, and one issued before cannot join
  await api(b, 'POST', `/calls/${call.id}/hangup`, { token: admin });
  await waitForCallEnd(b, call.id, { authorization: `Bearer ${admin}` });
  t.match(await audio(admin), { status: 409, body: { code: 'conflict' } }, 'the call has ended');
  leg = await openLeg(rejoin.media_url);
  leg.send(startMsg(call.id, rejoin.token));
  t.match(await leg.closed, { code: 1008, reason: 'unknown call' }, 'a ticket of an ended call');
});

t.test('no operator ticket is ever logged', async (t) => {
  const log = logLines.join('');
  t.ok(log.includes('media/operator') || log.length > 1000, 'the log was captured');
  t.ok(tickets.length >= 3 && tickets.every((x) => !log.includes(x) && !log.includes(x.split('.')[2])), `none of ${tickets.length} tickets`);
});
