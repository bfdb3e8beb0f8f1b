/**
 * The handoff phases of the session machine: a caller who asks for a person waits on hold (hold message, then
 * quiet, words only recorded), is offered a call-back when nobody comes, and the answer decides the goodbye; an
 * operator who joins silences the agent, and hands back to it or ends the call.
 */
import t from 'tap';
import { createSessionState, step } from '../../src/session/machine.js';
import type { SessionAction, SessionInput, SessionSettings, SessionState } from '../../src/session/events.js';
import { acceptsCallback } from '../../src/session/callback_answer.js';

const SETTINGS: SessionSettings = { hasDisclosure: true, noInputMs: 6000, escalationHoldMs: 3000, voicemail: 'hangup', operatorHoldMs: 60_000 };

function drive(inputs: SessionInput[], settings: Partial<SessionSettings> = {}): { s: SessionState; last: SessionAction[] } {
  const s = createSessionState({ ...SETTINGS, ...settings });
  let last: SessionAction[] = [];
  for (const i of inputs) last = step(s, i);
  return { s, last };
}
const played = (id: number, ending?: { kind: 'escalate' | 'end_call'; reason: string }): SessionInput[] => [
  { type: 'ReplyAudible', replyId: id }, { type: 'ReplyGenerated', replyId: id, ...(ending ? { ending } : {}) }, { type: 'PlayoutDrained', replyId: id }];
// disclosure (1), opening question (2), the caller asks for a person, the agent's escalating answer (3)
const escalated: SessionInput[] = [{ type: 'CallAnswered' }, ...played(1), ...played(2),
  { type: 'SpeechStarted', atMs: 9000 }, { type: 'TurnEnded', atMs: 10_800, speechEndMs: 10_000 },
  { type: 'TranscriptFinal', purpose: 'turn', text: 'Can I speak to a real person, please?' },
  { type: 'MediaAdvanced', mediaMs: 12_000 }, ...played(3, { kind: 'escalate', reason: 'caller_requested_human' })];
const onHold: SessionInput[] = [...escalated, ...played(4)];
const callerSays = (text: string, atMs: number): SessionInput[] => [
  { type: 'SpeechStarted', atMs: atMs - 1000 }, { type: 'TurnEnded', atMs, speechEndMs: atMs - 500 }, { type: 'TranscriptFinal', purpose: 'turn', text }];

t.test('an escalation with a hold time: the hold message, then quiet on hold', async (t) => {
  const d = drive(escalated);
  t.match(d.last, [{ type: 'CompleteReply', replyId: 3 }, { type: 'Escalate', reason: 'caller_requested_human' }, { type: 'StartReply', replyId: 4, kind: 'hold' }]);
  t.equal(d.s.holdUntilMs, 72_000, 'the hold time counts from the escalation');
  const h = drive(onHold);
  t.equal(h.s.phase, 'on_hold');
  t.same(step(h.s, { type: 'MediaAdvanced', mediaMs: 40_000 }), [], 'no check-in while on hold');
  const words = callerSays('hello, is anyone there?', 41_000).flatMap((i) => step(h.s, i));
  t.same(words.filter((a) => a.type !== 'FinalizeTranscript'), [{ type: 'RecordCallerTurn', text: 'hello, is anyone there?' }], 'recorded, not answered');
  t.same(step(h.s, { type: 'KeyPressed', digit: '5' }), [], 'keys are not answered either');
  t.equal(h.s.phase, 'on_hold');
});

t.test('without a hold time the old behaviour stands: hold the line briefly, then end escalated', async (t) => {
  const d = drive(escalated, { operatorHoldMs: 0 });
  t.equal(d.s.phase, 'ending');
  t.same(step(d.s, { type: 'MediaAdvanced', mediaMs: 15_000 }), [{ type: 'EndCall', reason: 'escalated' }]);
});

t.test('nobody comes: the call-back offer; yes schedules it, and the call ends escalation_unanswered', async (t) => {
  const h = drive(onHold);
  t.same(step(h.s, { type: 'MediaAdvanced', mediaMs: 71_980 }), []);
  t.match(step(h.s, { type: 'MediaAdvanced', mediaMs: 72_000 }), [{ type: 'HoldTimedOut' }, { type: 'StartReply', replyId: 5, kind: 'callback_offer' }]);
  for (const i of played(5)) step(h.s, i);
  t.equal(h.s.phase, 'listening');
  const yes = callerSays('Yes please, call me back.', 75_000).flatMap((i) => step(h.s, i));
  t.match(yes.filter((a) => a.type !== 'FinalizeTranscript'), [{ type: 'RecordCallerTurn' }, { type: 'CallbackAccepted', text: 'Yes please, call me back.' },
    { type: 'StartReply', replyId: 6, kind: 'callback_confirmed' }]);
  t.match(played(6).flatMap((i) => step(h.s, i)), [{ type: 'CompleteReply' }, { type: 'EndCall', reason: 'escalation_unanswered' }]);
});

t.test('a no, silence, or a hang-up on the goodbye: no call-back, still escalation_unanswered', async (t) => {
  const no = drive([...onHold, { type: 'MediaAdvanced', mediaMs: 72_000 }, ...played(5), ...callerSays('No thanks.', 75_000)]);
  t.match(no.last, [{ type: 'RecordCallerTurn' }, { type: 'StartReply', kind: 'callback_declined' }]);
  const silent = drive([...onHold, { type: 'MediaAdvanced', mediaMs: 72_000 }, ...played(5), { type: 'MediaAdvanced', mediaMs: 72_500 }]);
  t.match(step(silent.s, { type: 'MediaAdvanced', mediaMs: 78_500 }), [{ type: 'StartReply', kind: 'callback_declined' }], 'no answer is no');
  const gone = drive([...onHold, { type: 'MediaAdvanced', mediaMs: 72_000 }, { type: 'MediaEnded', reason: 'stop' }]);
  t.match(gone.last.at(-1), { type: 'EndCall', reason: 'escalation_unanswered' });
  const early = drive([...onHold, { type: 'MediaEnded', reason: 'stop' }]);
  t.match(early.last.at(-1), { type: 'EndCall', reason: 'caller_hangup' }, 'a caller who leaves the queue hung up');
});

t.test('an operator joins: the agent is silent; hands back (the agent speaks again) or ends (transferred)', async (t) => {
  const h = drive(onHold);
  t.same(step(h.s, { type: 'OperatorJoined' }), []);
  t.equal(h.s.phase, 'with_operator');
  t.same(step(h.s, { type: 'MediaAdvanced', mediaMs: 200_000 }), [], 'the hold time no longer runs');
  const words = callerSays('Hi, yes I want the villa.', 201_000).flatMap((i) => step(h.s, i));
  t.same(words.filter((a) => a.type !== 'FinalizeTranscript'), [{ type: 'RecordCallerTurn', text: 'Hi, yes I want the villa.' }]);
  t.match(step(h.s, { type: 'OperatorLeft', then: 'agent' }), [{ type: 'StartReply', kind: 'agent_back' }]);
  for (const i of played(5)) step(h.s, i);
  t.equal(h.s.phase, 'listening', 'the agent answers again');
  const ended = drive([...onHold, { type: 'OperatorJoined' }, { type: 'OperatorLeft', then: 'end' }]);
  t.same(ended.last, [{ type: 'EndCall', reason: 'transferred' }]);
  const offered = drive([...onHold, { type: 'MediaAdvanced', mediaMs: 72_000 }, { type: 'OperatorJoined' }]);
  t.match(offered.last, [{ type: 'CutReply', replyId: 5 }], 'an operator who accepts as the offer starts still takes the call');
  t.equal(offered.s.endReason, undefined);
});

t.test('the call-back answer', async (t) => {
  for (const yes of ['Yes please', 'sure', 'Okay, call me back', 'Can I speak to a real person, please?']) t.ok(acceptsCallback(yes), yes);
  for (const no of ['No thanks', "Please don't", 'not now', 'hmm', '']) t.notOk(acceptsCallback(no), no || '(nothing)');
});
