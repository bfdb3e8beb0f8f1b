/**
 * Issue 33, "stop calling / don't call me again": it used to be a plain decline, and the number stayed callable.
 * The dialog ends the call `opted_out`; the call session turns that ending into an opt-out at once (before the
 * goodbye has played, so a caller who hangs up on it is still honoured), which the runner stores on the tenant's
 * DND list (source spoken_opt_out, with its time) — the list every later dispatch is gated by.
 */
import t from 'tap';
import { converse } from './helpers/converse.js';
import { createSessionState, step } from '../../src/session/machine.js';
import type { SessionAction, SessionInput } from '../../src/session/events.js';

t.test('the dialog ends opted_out for every way of saying it', async (t) => {
  for (const say of ['stop calling me', "don't ever call me again", 'Do not call this number', 'please take me off your list', 'unsubscribe']) {
    t.same(converse([say]).last.at(-1), { type: 'end_call', reason: 'opted_out' }, say);
  }
  t.same(converse(['I am not interested']).last.at(-1), { type: 'end_call', reason: 'caller_declined' }, 'a decline is not an opt-out');
});

t.test('the session opts the number out as soon as the reply ends the call opted_out, then ends it opted_out', async (t) => {
  const s = createSessionState({ hasDisclosure: true, noInputMs: 6000, escalationHoldMs: 3000, voicemail: 'hangup' });
  const all: SessionAction[] = [];
  const drive = (i: SessionInput) => { const out = step(s, i); all.push(...out); return out; };
  for (const i of [
    { type: 'CallAnswered' }, { type: 'ReplyAudible', replyId: 1 }, { type: 'ReplyGenerated', replyId: 1 }, { type: 'PlayoutDrained', replyId: 1 },
    { type: 'ReplyAudible', replyId: 2 }, { type: 'ReplyGenerated', replyId: 2 }, { type: 'PlayoutDrained', replyId: 2 },
    { type: 'SpeechStarted', atMs: 9000 }, { type: 'TurnEnded', atMs: 10_800, speechEndMs: 10_000 },
    { type: 'TranscriptFinal', purpose: 'turn', text: 'stop calling me' }, { type: 'ReplyAudible', replyId: 3 },
  ] as SessionInput[]) drive(i);
  const generated = drive({ type: 'ReplyGenerated', replyId: 3, ending: { kind: 'end_call', reason: 'opted_out' } });
  t.same(generated, [{ type: 'OptOut', source: 'spoken' }], 'opted out before the goodbye has played');
  const drained = drive({ type: 'PlayoutDrained', replyId: 3 });
  t.match(drained.at(-1), { type: 'EndCall', reason: 'opted_out' });
  t.equal(all.filter((a) => a.type === 'OptOut').length, 1);
});
