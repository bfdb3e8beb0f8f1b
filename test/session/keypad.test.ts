/**
 * Key presses in the session machine: a key with an action (a person, an opt-out, the end) does it at once, with
 * the press in the transcript; other keys are the caller's input to the dialog, answered once the caller stops
 * pressing (or presses #), as a caller turn whose text says they came from the keypad.
 */
import t from 'tap';
import { createSessionState, step } from '../../src/session/machine.js';
import { KEYS_GAP_MS } from '../../src/session/keypad.js';
import type { SessionAction, SessionInput, SessionSettings } from '../../src/session/events.js';

const SETTINGS: SessionSettings = { hasDisclosure: true, noInputMs: 6000, escalationHoldMs: 3000, voicemail: 'hangup',
  keypad: { 0: 'operator', 9: 'opt_out', '*': 'end_call' } };
const answered: SessionInput[] = [{ type: 'CallAnswered' }];
const disclosed: SessionInput[] = [...answered, { type: 'ReplyAudible', replyId: 1 }, { type: 'ReplyGenerated', replyId: 1 }, { type: 'PlayoutDrained', replyId: 1 }];
const listening: SessionInput[] = [...disclosed, { type: 'ReplyAudible', replyId: 2 }, { type: 'ReplyGenerated', replyId: 2 }, { type: 'PlayoutDrained', replyId: 2 },
  { type: 'MediaAdvanced', mediaMs: 1000 }];

function drive(inputs: SessionInput[], settings: Partial<SessionSettings> = {}) {
  const s = createSessionState({ ...SETTINGS, ...settings });
  const all: SessionAction[][] = [];
  for (const i of inputs) all.push(step(s, i));
  return { s, last: all.at(-1) ?? [], all: all.flat(), steps: all };
}
const press = (digit: string): SessionInput => ({ type: 'KeyPressed', digit });

t.test('0 = a person: the press is in the transcript, an escalation, and the transfer', async (t) => {
  const { s, last } = drive([...listening, press('0')]);
  t.same(last.map((a) => a.type), ['RecordCallerTurn', 'Escalate', 'Transfer']);
  t.match(last[0], { text: '[keypad] 0' });
  t.match(last[2], { target: 'operator' });
  t.equal(s.phase, 'transferring');
});

t.test('9 = opt out: the number goes on do-not-disturb at once, the caller hears it was honoured, then the call ends', async (t) => {
  const pressed = [...listening, press('9')];
  const { s, last } = drive(pressed);
  t.same(last.map((a) => a.type), ['RecordCallerTurn', 'OptOut', 'StartReply']);
  t.match(last.at(-1), { kind: 'farewell' });
  t.equal(s.phase, 'ending');
  const barged = drive([...pressed, { type: 'SpeechStarted', atMs: 1100 }]);
  t.same(barged.last, [], 'the confirmation is not interrupted by speech');
  const played = drive([...pressed, { type: 'ReplyAudible', replyId: 3 }, { type: 'ReplyGenerated', replyId: 3 }, { type: 'PlayoutDrained', replyId: 3 }]);
  t.same(played.last.map((a) => a.type), ['CompleteReply', 'EndCall']);
  t.match(played.last.at(-1), { reason: 'opted_out' });
  t.equal(played.s.phase, 'ended');
  const hungUp = drive([...pressed, { type: 'MediaEnded', reason: 'stop' }]);
  t.equal(hungUp.all.filter((a) => a.type === 'OptOut').length, 1, 'hanging up during the line keeps the opt-out');
});

t.test('a key with an action works while the agent speaks: the reply is cut first', async (t) => {
  const speaking: SessionInput[] = [...listening, { type: 'SpeechStarted', atMs: 1100 }, { type: 'TurnEnded', atMs: 2000, speechEndMs: 1800 },
    { type: 'TranscriptFinal', purpose: 'turn', text: 'tell me more' }, { type: 'ReplyAudible', replyId: 3 }];
  const { last } = drive([...speaking, press('*')]);
  t.same(last.map((a) => a.type), ['RecordCallerTurn', 'CutReply', 'EndCall']);
  t.match(last.at(-1), { reason: 'caller_keypad' });
});

t.test('other keys are caller input: collected, then answered after a pause or #', async (t) => {
  const typed = [...listening, press('4'), { type: 'MediaAdvanced', mediaMs: 1500 } as SessionInput, press('2')];
  const before = drive(typed);
  t.same(before.steps.slice(-3).flat(), [], 'nothing yet: the caller may press more');
  const paused = drive([...typed, { type: 'MediaAdvanced', mediaMs: 1500 + KEYS_GAP_MS + 20 }]);
  t.same(paused.last.map((a) => a.type), ['RecordCallerTurn', 'StartReply']);
  t.match(paused.last[0], { text: '[keypad] 42' });
  t.match(paused.last[1], { kind: 'answer', callerText: '[keypad] 42' });
  const hashed = drive([...listening, press('7'), press('#')]);
  t.same(hashed.last.map((a) => a.type), ['RecordCallerTurn', 'StartReply'], '# sends what was typed at once');
  t.match(hashed.last[0], { text: '[keypad] 7' });
});

t.test('without a keypad setting every key is input; keys during the disclosure wait for it', async (t) => {
  const { last } = drive([...listening, press('0'), press('#')], { keypad: undefined });
  t.match(last[0], { type: 'RecordCallerTurn', text: '[keypad] 0' });
  const during = drive([...answered, press('5'), press('#')]);
  t.same(during.last.map((a) => a.type), ['RecordCallerTurn'], 'kept for after the disclosure');
  const after = drive([...answered, press('5'), press('#'), { type: 'ReplyAudible', replyId: 1 }, { type: 'ReplyGenerated', replyId: 1 },
    { type: 'PlayoutDrained', replyId: 1 }]);
  t.match(after.last.find((a) => a.type === 'StartReply'), { kind: 'answer', callerText: '[keypad] 5' });
});

t.test('after the end nothing a key does counts', async (t) => {
  const { last } = drive([...listening, { type: 'HangupRequested', reason: 'hangup_api' }, press('0')]);
  t.same(last, []);
});
