/**
 * Every transition of the session machine (src/session/machine.ts), input by input: the phase it leads to and
 * the actions it asks for. No I/O: the machine is a function of its state.
 */
import t from 'tap';
import { createSessionState, step } from '../../src/session/machine.js';
import type { Phase, SessionAction, SessionInput, SessionSettings, SessionState } from '../../src/session/events.js';

const SETTINGS: SessionSettings = { hasDisclosure: true, noInputMs: 6000, escalationHoldMs: 3000, voicemail: 'hangup' };

/** A machine driven through `inputs`; returns it and the actions of the last input. */
function drive(inputs: SessionInput[], settings: Partial<SessionSettings> = {}): { s: SessionState; last: SessionAction[]; all: SessionAction[] } {
  const s = createSessionState({ ...SETTINGS, ...settings });
  let last: SessionAction[] = [];
  const all: SessionAction[] = [];
  for (const i of inputs) { last = step(s, i); all.push(...last); }
  return { s, last, all };
}
const types = (as: SessionAction[]) => as.map((a) => a.type);

// Input sequences that lead to each phase.
const answered: SessionInput[] = [{ type: 'CallAnswered' }];
const disclosed: SessionInput[] = [...answered, { type: 'ReplyAudible', replyId: 1 }, { type: 'ReplyGenerated', replyId: 1 }, { type: 'PlayoutDrained', replyId: 1 }];
const asking: SessionInput[] = [...disclosed, { type: 'ReplyAudible', replyId: 2 }];
const listening: SessionInput[] = [...asking, { type: 'ReplyGenerated', replyId: 2 }, { type: 'PlayoutDrained', replyId: 2 }];
const turnEnded: SessionInput[] = [...listening, { type: 'SpeechStarted', atMs: 9000 }, { type: 'TurnEnded', atMs: 10_800, speechEndMs: 10_000 }];
const thinking: SessionInput[] = [...turnEnded, { type: 'TranscriptFinal', purpose: 'turn', text: 'I want a flat' }];
const speaking: SessionInput[] = [...thinking, { type: 'ReplyAudible', replyId: 3 }];
const interrupted: SessionInput[] = [...speaking, { type: 'SpeechStarted', atMs: 11_500 }, { type: 'BargeInDetected', atMs: 11_700, protectedAudio: false }];

const phaseAfter = (inputs: SessionInput[], settings?: Partial<SessionSettings>): Phase => drive(inputs, settings).s.phase;

t.test('the phases the sequences above lead to', async (t) => {
  t.equal(phaseAfter([]), 'idle');
  t.equal(phaseAfter(answered), 'disclosure');
  t.equal(phaseAfter(disclosed), 'thinking', 'the opening question is being prepared');
  t.equal(phaseAfter(asking), 'speaking');
  t.equal(phaseAfter(listening), 'listening');
  t.equal(phaseAfter(thinking), 'thinking');
  t.equal(phaseAfter(speaking), 'speaking');
  t.equal(phaseAfter(interrupted), 'interrupted');
});

t.test('idle -> disclosure when the agent has one, else straight to the opening turn', async (t) => {
  const d = drive(answered);
  t.same(d.last, [{ type: 'StartReply', replyId: 1, kind: 'disclosure', callerText: '', turn: undefined }]);
  const n = drive(answered, { hasDisclosure: false });
  t.equal(n.s.phase, 'thinking');
  t.match(n.last, [{ type: 'StartReply', kind: 'opening' }]);
});

t.test('disclosure: a barge-in does not cut it; the speech is a turn kept for later', async (t) => {
  const d = drive([...answered, { type: 'ReplyAudible', replyId: 1 }, { type: 'BargeInDetected', atMs: 1000, protectedAudio: true }]);
  t.equal(d.s.phase, 'disclosure');
  t.same(d.last, [{ type: 'ResolveBargeIn', verdict: 'words' }], 'no pause, no cut');
  const w = drive([...answered, { type: 'ReplyAudible', replyId: 1 }, { type: 'TurnEnded', atMs: 2600, speechEndMs: 1800 },
    { type: 'TranscriptFinal', purpose: 'turn', text: 'Who is this?' }]);
  t.equal(w.s.phase, 'disclosure');
  t.same(w.last, [{ type: 'RecordCallerTurn', text: 'Who is this?' }]);
  t.equal(w.s.heldText, 'Who is this?');
});

t.test('disclosure: a backchannel is noted, not held', async (t) => {
  const d = drive([...answered, { type: 'ReplyAudible', replyId: 1 }, { type: 'TurnEnded', atMs: 2600, speechEndMs: 1800 },
    { type: 'TranscriptFinal', purpose: 'turn', text: 'uh huh' }]);
  t.same(d.last, [{ type: 'RecordBackchannel', text: 'uh huh' }]);
  t.equal(d.s.heldText, '');
  t.equal(d.s.phase, 'disclosure');
});

t.test('disclosure played in full: delivered, then the held words are answered (or the opening turn)', async (t) => {
  const plain = drive(disclosed);
  t.same(types(plain.all.slice(1)), ['CompleteReply', 'DisclosureDelivered', 'StartReply']);
  t.match(plain.last.at(-1), { kind: 'opening' });
  t.ok(plain.s.disclosureDelivered);
  const held = drive([...answered, { type: 'ReplyAudible', replyId: 1 }, { type: 'TurnEnded', atMs: 2600, speechEndMs: 1800 },
    { type: 'TranscriptFinal', purpose: 'turn', text: 'Who is this?' }, { type: 'ReplyGenerated', replyId: 1 }, { type: 'PlayoutDrained', replyId: 1 }]);
  t.match(held.last, [{ type: 'CompleteReply' }, { type: 'DisclosureDelivered' }, { type: 'StartReply', kind: 'answer', callerText: 'Who is this?' }]);
  t.equal(held.s.phase, 'thinking');
});

t.test('a disclosure that failed (fallback and escalation) is not delivered', async (t) => {
  const d = drive([...answered, { type: 'ReplyAudible', replyId: 1 }, { type: 'ReplyGenerated', replyId: 1, ending: { kind: 'escalate', reason: 'adapter_failure:tts:timeout' } },
    { type: 'PlayoutDrained', replyId: 1 }]);
  t.notOk(d.s.disclosureDelivered);
  t.same(types(d.last), ['CompleteReply', 'Escalate']);
  t.equal(d.s.phase, 'ending');
  t.equal(d.s.endReason, 'adapter_failure');
});

t.test('drained before the reply is generated is not the end of it', async (t) => {
  const d = drive([...answered, { type: 'ReplyAudible', replyId: 1 }, { type: 'PlayoutDrained', replyId: 1 }]);
  t.same(d.last, []);
  t.equal(d.s.phase, 'disclosure');
});

t.test('thinking -> speaking when the first audio is queued', async (t) => {
  const d = drive(speaking);
  t.same(d.last, []);
  t.ok(d.s.reply?.audible);
});

t.test('listening: a turn ends, its transcript is finalised, its words answered', async (t) => {
  const te = drive(turnEnded);
  t.same(te.last, [{ type: 'FinalizeTranscript', purpose: 'turn', turn: { speechEndMs: 10_000, endedAtMs: 10_800 } }]);
  const th = drive(thinking);
  t.same(th.last, [{ type: 'RecordCallerTurn', text: 'I want a flat' },
    { type: 'StartReply', replyId: 3, kind: 'answer', callerText: 'I want a flat', turn: undefined }]);
});

t.test('listening: a lone backchannel is never answered; noise is nothing', async (t) => {
  const bc = drive([...turnEnded, { type: 'TranscriptFinal', purpose: 'turn', text: 'Okay.' }]);
  t.same(bc.last, [{ type: 'RecordBackchannel', text: 'Okay.' }]);
  t.equal(bc.s.phase, 'listening');
  const noise = drive([...turnEnded, { type: 'TranscriptFinal', purpose: 'turn', text: '' }]);
  t.same(noise.last, []);
  t.equal(noise.s.phase, 'listening');
});

t.test('thinking: a newer turn replaces the reply in the making, and answers both', async (t) => {
  const d = drive([...thinking, { type: 'TurnEnded', atMs: 12_000, speechEndMs: 11_200 },
    { type: 'TranscriptFinal', purpose: 'turn', text: 'with two bedrooms' }]);
  // the reply is cut before the words are recorded: the transcript keeps what was said in the order it was said
  t.same(d.last, [{ type: 'CutReply', replyId: 3 }, { type: 'RecordCallerTurn', text: 'with two bedrooms' },
    { type: 'StartReply', replyId: 4, kind: 'answer', callerText: 'I want a flat with two bedrooms', turn: undefined }]);
});

t.test('speaking: a barge-in pauses the reply while the words decide', async (t) => {
  const d = drive(interrupted);
  t.same(d.last, [{ type: 'PausePlayout' }]);
  const p = drive([...speaking, { type: 'BargeInDetected', atMs: 11_700, protectedAudio: true }]);
  t.equal(p.s.phase, 'speaking', 'protected audio plays on');
  t.same(p.last, [{ type: 'ResolveBargeIn', verdict: 'words' }]);
});

t.test('interrupted: the speech stops, its words are finalised', async (t) => {
  const d = drive([...interrupted, { type: 'SpeechStopped', atMs: 12_300, speechEndMs: 12_100 }]);
  t.same(d.last, [{ type: 'FinalizeTranscript', purpose: 'barge_in' }]);
});

t.test('interrupted: a backchannel or no words resume the reply where it stopped', async (t) => {
  for (const text of ['uh huh', '']) {
    const d = drive([...interrupted, { type: 'SpeechStopped', atMs: 12_300, speechEndMs: 12_100 }, { type: 'TranscriptFinal', purpose: 'barge_in', text }]);
    t.same(d.last, [{ type: 'ResolveBargeIn', verdict: text ? 'backchannel' : 'no_words' }, { type: 'RecordBackchannel', text }, { type: 'ResumePlayout' }]);
    t.equal(d.s.phase, 'speaking');
  }
  const short = drive([...interrupted, { type: 'InterruptionRecovered', atMs: 12_000 }]);
  t.same(short.last, [{ type: 'RecordBackchannel', text: '' }, { type: 'ResumePlayout' }], 'too short to be an interruption');
});

t.test('interrupted: words cut the reply, are recorded as the caller\'s, and the caller keeps the turn', async (t) => {
  const d = drive([...interrupted, { type: 'SpeechStopped', atMs: 12_300, speechEndMs: 12_100 }, { type: 'TranscriptFinal', purpose: 'barge_in', text: 'Wait, I meant' }]);
  t.same(d.last, [{ type: 'ResolveBargeIn', verdict: 'words' }, { type: 'RecordInterruption' },
    { type: 'CutReply', replyId: 3 }, { type: 'RecordCallerTurn', text: 'Wait, I meant' }]);
  t.equal(d.s.phase, 'listening');
  t.equal(d.s.heldText, 'Wait, I meant');
  const answered2 = step(d.s, { type: 'TurnEnded', atMs: 13_100, speechEndMs: 12_300 });
  t.same(types(answered2), ['FinalizeTranscript']);
  t.match(step(d.s, { type: 'TranscriptFinal', purpose: 'turn', text: 'a villa' }), [{ type: 'RecordCallerTurn' }, { type: 'StartReply', callerText: 'Wait, I meant a villa' }]);
});

t.test('interrupted: interim words settle it early, unless they may still be a backchannel', async (t) => {
  const early = drive([...interrupted, { type: 'TranscriptInterim', text: 'no no I' }]);
  t.same(early.last, [{ type: 'ResolveBargeIn', verdict: 'words' }, { type: 'RecordInterruption' }, { type: 'CutReply', replyId: 3 }]);
  const notYet = drive([...interrupted, { type: 'TranscriptInterim', text: 'all' }]);
  t.same(notYet.last, []);
  t.equal(notYet.s.phase, 'interrupted');
  t.same(drive([...interrupted, { type: 'TranscriptInterim', text: 'okay' }]).last, []);
});

t.test('a reply played in full goes into the history and the agent listens', async (t) => {
  const d = drive([...speaking, { type: 'ReplyGenerated', replyId: 3 }, { type: 'PlayoutDrained', replyId: 3 }]);
  t.same(d.last, [{ type: 'CompleteReply', replyId: 3 }]);
  t.equal(d.s.phase, 'listening');
});

t.test('an ending reply: end_call hangs up once it has played', async (t) => {
  const d = drive([...speaking, { type: 'ReplyGenerated', replyId: 3, ending: { kind: 'end_call', reason: 'completed' } }, { type: 'PlayoutDrained', replyId: 3 }]);
  t.same(d.last, [{ type: 'CompleteReply', replyId: 3 }, { type: 'EndCall', reason: 'completed' }]);
  t.equal(d.s.phase, 'ended');
});

t.test('an escalation holds the line for a transfer, then ends', async (t) => {
  const d = drive([...speaking, { type: 'ReplyGenerated', replyId: 3, ending: { kind: 'escalate', reason: 'caller_requested_human' } },
    { type: 'MediaAdvanced', mediaMs: 14_000 }, { type: 'PlayoutDrained', replyId: 3 }]);
  t.same(d.last, [{ type: 'CompleteReply', replyId: 3 }, { type: 'Escalate', reason: 'caller_requested_human' }]);
  t.equal(d.s.phase, 'ending');
  t.same(step(d.s, { type: 'TurnEnded', atMs: 15_000, speechEndMs: 14_500 }), [], 'caller speech is not answered while holding');
  t.same(step(d.s, { type: 'MediaAdvanced', mediaMs: 16_980 }), []);
  t.same(step(d.s, { type: 'MediaAdvanced', mediaMs: 17_000 }), [{ type: 'EndCall', reason: 'escalated' }]);
});

t.test('no input: the agent checks in after the silence, not while the caller talks or a transcript is pending', async (t) => {
  const d = drive([...listening, { type: 'MediaAdvanced', mediaMs: 5000 }]);
  t.same(d.last, []);
  t.match(step(d.s, { type: 'MediaAdvanced', mediaMs: 6000 }), [{ type: 'StartReply', kind: 'check_in', callerText: '' }]);
  const talking = drive([...listening, { type: 'SpeechStarted', atMs: 100 }, { type: 'MediaAdvanced', mediaMs: 7000 }]);
  t.same(talking.last, []);
  const pending = drive([...turnEnded, { type: 'MediaAdvanced', mediaMs: 30_000 }]);
  t.same(pending.last, []);
});

t.test('hang-up while thinking: the reply in the making is dropped and the call ends', async (t) => {
  const d = drive([...thinking, { type: 'HangupRequested', reason: 'hangup_api' }]);
  t.same(d.last, [{ type: 'CutReply', replyId: 3 }, { type: 'EndCall', reason: 'hangup_api' }]);
  t.equal(d.s.phase, 'ended');
  t.same(step(d.s, { type: 'TurnEnded', atMs: 1, speechEndMs: 0 }), [], 'nothing after the end');
});

t.test('the carrier ends the stream: caller hang-up or a closed socket', async (t) => {
  t.same(drive([...speaking, { type: 'MediaEnded', reason: 'stop' }]).last, [{ type: 'CutReply', replyId: 3 }, { type: 'EndCall', reason: 'caller_hangup' }]);
  t.same(drive([...listening, { type: 'MediaEnded', reason: 'closed' }]).last, [{ type: 'EndCall', reason: 'media_closed' }]);
});

t.test('transfer while speaking: the agent stops, the carrier bridges, the AI leg ends', async (t) => {
  const d = drive([...speaking, { type: 'TransferRequested', target: '+14155550199' }]);
  t.same(d.last, [{ type: 'CutReply', replyId: 3 }, { type: 'Transfer', target: '+14155550199' }]);
  t.equal(d.s.phase, 'transferring');
  t.same(step(d.s, { type: 'TurnEnded', atMs: 1, speechEndMs: 0 }), [], 'not answered while transferring');
  t.same(step(d.s, { type: 'TransferCompleted' }), [{ type: 'EndCall', reason: 'transferred' }]);
  const failed = drive([...speaking, { type: 'TransferRequested', target: '+1' }, { type: 'TransferFailed', reason: 'busy' }]);
  t.equal(failed.s.phase, 'listening', 'a failed transfer leaves the call with the agent');
});

t.test('speech-to-text fails: the reply stage speaks the fallback for that turn', async (t) => {
  const err = new Error('stt down');
  const d = drive([...turnEnded, { type: 'TranscriptFailed', purpose: 'turn', error: err }]);
  t.same(d.last, [{ type: 'StartReply', replyId: 3, kind: 'answer', callerText: '', turn: undefined, sttFailure: err }]);
  const b = drive([...interrupted, { type: 'TranscriptFailed', purpose: 'barge_in', error: err }]);
  t.same(types(b.last), ['RecordBackchannel', 'ResumePlayout'], 'an unknown barge-in resumes the reply');
});

t.test('speech heard and not understood: the dialog is asked to ask again; noise is not', async (t) => {
  const d = drive([...turnEnded, { type: 'TranscriptFinal', purpose: 'turn', text: '', unheard: true }]);
  t.same(d.last, [{ type: 'StartReply', replyId: 3, kind: 'answer', callerText: '', turn: undefined, unheard: true }]);
  t.equal(d.s.phase, 'thinking');
  t.same(drive([...turnEnded, { type: 'TranscriptFinal', purpose: 'turn', text: '' }]).last, [], 'silence or noise: nothing to answer');
  const busy = drive([...asking, { type: 'TurnEnded', atMs: 1, speechEndMs: 0 }, { type: 'TranscriptFinal', purpose: 'turn', text: '', unheard: true }]);
  t.same(busy.last, [], 'the agent is speaking: nothing to ask again');
});

t.test('a recognition past its deadline is asked again once; a second in a row is the fallback', async (t) => {
  const err = new Error('stt call exceeded 3000 ms');
  const late: SessionInput = { type: 'TranscriptFailed', purpose: 'turn', error: err, timedOut: true };
  const answerAgain = (d: { last: SessionAction[] }) => d.last.find((a) => a.type === 'StartReply') as Extract<SessionAction, { type: 'StartReply' }>;
  const once = drive([...turnEnded, late]);
  t.same(once.last, [{ type: 'StartReply', replyId: 3, kind: 'answer', callerText: '', turn: undefined, unheard: true }], 'no fallback, no escalation');
  const replied = [...turnEnded, late, { type: 'ReplyAudible', replyId: 3 }, { type: 'ReplyGenerated', replyId: 3 }, { type: 'PlayoutDrained', replyId: 3 },
    { type: 'SpeechStarted', atMs: 20_000 }, { type: 'TurnEnded', atMs: 21_000, speechEndMs: 20_800 }] satisfies SessionInput[];
  const twice = answerAgain(drive([...replied, late]));
  t.equal(twice.sttFailure, err, 'the second miss in a row speaks the fallback');
  t.notOk(twice.unheard);
  const between = drive([...replied, { type: 'TranscriptFinal', purpose: 'turn', text: 'I want a flat' }, { type: 'ReplyAudible', replyId: 4 },
    { type: 'ReplyGenerated', replyId: 4 }, { type: 'PlayoutDrained', replyId: 4 }, { type: 'SpeechStarted', atMs: 30_000 },
    { type: 'TurnEnded', atMs: 31_000, speechEndMs: 30_800 }, late]);
  t.equal(answerAgain(between).unheard, true, 'a turn heard in between starts the count again');
});

t.test('a machine answers: hang up, or wait for the beep and leave the message', async (t) => {
  t.same(drive([...answered, { type: 'MachineDetected', beepDone: true }]).last, [{ type: 'CutReply', replyId: 1 }, { type: 'EndCall', reason: 'voicemail' }]);
  const msg = drive([...answered, { type: 'MachineDetected', beepDone: false }], { voicemail: 'leave_message' });
  t.equal(msg.s.phase, 'ending');
  t.same(msg.last, [{ type: 'CutReply', replyId: 1 }]);
  const beep = step(msg.s, { type: 'MachineDetected', beepDone: true });
  t.match(beep, [{ type: 'StartReply', kind: 'voicemail' }]);
  step(msg.s, { type: 'ReplyAudible', replyId: 2 });
  step(msg.s, { type: 'ReplyGenerated', replyId: 2 });
  t.same(step(msg.s, { type: 'PlayoutDrained', replyId: 2 }), [{ type: 'CompleteReply', replyId: 2 }, { type: 'EndCall', reason: 'voicemail' }]);
  const noBeep = drive([...answered, { type: 'MachineDetected', beepDone: false }, { type: 'MediaAdvanced', mediaMs: 30_000 }], { voicemail: 'leave_message' });
  t.same(noBeep.last, [{ type: 'EndCall', reason: 'voicemail' }], 'a greeting that never ends is given up on');
});

t.test('inputs about another reply are ignored', async (t) => {
  t.same(drive([...speaking, { type: 'PlayoutDrained', replyId: 2 }]).last, []);
  t.same(drive([...speaking, { type: 'ReplyGenerated', replyId: 99 }]).last, []);
});
