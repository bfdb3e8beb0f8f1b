/**
 * Whole sessions against scripted fakes (test/session/harness.ts): what the caller hears, what the carrier is
 * told, what goes into the history, for the moments a live call is hardest on: a barge-in during a streamed reply,
 * a backchannel during the disclosure, a hang-up while thinking, a transfer while speaking.
 */
import t from 'tap';
import { runSession } from './harness.js';

// The disclosure "This is an AI assistant." is 24 characters: 480 ms of audio from t = 0 (the TTS fake makes 20 ms a
// character), then the opening question.
const opening = { chunks: ['May I have your name?'] };

t.test('the disclosure plays, then the opening question; silence after it is the caller\'s turn to take', async (t) => {
  const r = await runSession({ replies: [opening], steps: [], untilMs: 2000 });
  t.same(r.said, [{ speaker: 'agent', text: 'This is an AI assistant.' }, { speaker: 'agent', text: 'May I have your name?' }]);
  t.ok(r.session.ledger.disclosureDeliveredAt, 'delivered in full, and when');
  t.equal(r.session.state.phase, 'listening');
  t.equal(r.carrier.clears, 0);
  t.equal(r.carrier.framesSent, 24 + 21, 'every frame of both');
  t.equal(r.dialog.requests[0].history[0].text, 'This is an AI assistant.', 'the dialog knows the disclosure was said');
});

t.test('a backchannel during the disclosure: the disclosure is not cut, the backchannel is not answered', async (t) => {
  const r = await runSession({
    replies: [opening],
    steps: [
      { at: 100, event: 'SpeechStarted' }, { at: 200, says: 'uh huh' }, { at: 300, event: 'BargeInDetected' },
      { at: 400, event: 'SpeechStopped' }, { at: 1200, event: 'TurnEnded' },
    ],
    untilMs: 3000,
  });
  t.equal(r.carrier.clears, 0, 'nothing was cleared');
  t.equal(r.carrier.framesSent, 24 + 21);
  t.ok(r.session.ledger.disclosureDeliveredAt);
  t.same(r.said.map((s) => s.text), ['This is an AI assistant.', 'May I have your name?'], 'no answer to "uh huh", no truncation');
  t.equal(r.session.ledger.backchannels, 1);
  t.equal(r.dialog.requests.length, 1, 'the dialog was asked once: the opening turn');
  t.ok(r.actions.some((a) => a.type === 'ResolveBargeIn' && a.verdict === 'words'), 'the detector keeps the speech as a turn');
});

t.test('words during the disclosure are kept and answered after it', async (t) => {
  // a longer disclosure: 1.5 s, and the caller's turn ends inside it
  const r = await runSession({
    agent: { disclosure_script: 'This is an AI assistant calling for Acme Realty; this call may be recorded.' },
    replies: [{ chunks: ['Ravi, this is Acme Realty calling about your enquiry.'] }],
    steps: [{ at: 100, event: 'SpeechStarted' }, { at: 200, says: 'Who is this?' }, { at: 300, event: 'BargeInDetected' }, { at: 1100, event: 'TurnEnded' }],
    untilMs: 3000,
  });
  t.equal(r.carrier.clears, 0);
  t.same(r.said.map((s) => `${s.speaker}: ${s.text}`), ['caller: Who is this?', 'agent: This is an AI assistant calling for Acme Realty; this call may be recorded.',
    'agent: Ravi, this is Acme Realty calling about your enquiry.']);
  t.equal(r.dialog.requests[0].callerText, 'Who is this?', 'the first turn after the disclosure answers it');
});

/** an opening reply of three sentences in small chunks; the model stalls before its last */
const streamedReply = { chunks: ['May I have ', 'your full ', 'name, please? ', 'And the best ', 'number to reach ', 'you later? ', 'Thank you.'], stallAfter: 6 };

t.test('barge-in during a streamed reply: paused at once, cut by the words, the stream aborted, only the heard part kept', async (t) => {
  // the opening reply streams three sentences in small chunks; the caller cuts in 300 ms into it
  const r = await runSession({
    replies: [streamedReply, { chunks: ['Of course.'] }],
    steps: [
      { at: 800, event: 'SpeechStarted' }, { at: 900, says: 'no wait' }, { at: 1000, event: 'BargeInDetected' },
      { at: 1040, interim: 'no wait I' }, { at: 1300, event: 'SpeechStopped' }, { at: 2100, event: 'TurnEnded' },
    ],
    untilMs: 4000,
  });
  const pausedAt = r.actions.find((a) => a.type === 'PausePlayout')!.at;
  t.equal(pausedAt, 1000, 'paused on the frame the barge-in was detected');
  const cut = r.actions.find((a) => a.type === 'CutReply')!;
  t.equal(cut.at, 1040, 'cut as soon as the interim words could not be a backchannel');
  t.equal(r.carrier.clears, 1, 'the carrier dropped its buffer');
  t.equal(r.dialog.aborted, 1, 'the model stream was aborted while stalled');
  t.equal(r.session.ledger.interruptions, 1);
  const truncated = r.said.find((s) => s.truncated)!;
  t.ok(truncated, 'a truncated agent message');
  t.match(truncated.text, /^May I have your full/, 'what was heard of it');
  t.notMatch(truncated.text, /number/, 'not what never played');
  t.same(r.dialog.requests[1]?.callerText, 'no wait', 'the caller\'s words are answered');
  t.equal(r.said.at(-1)?.text, 'Of course.');
});

t.test('words that cut a reply come after what was heard of it, on a recogniser with no interim words', async (t) => {
  // the offline ears give final text only: the barge-in is decided by its final transcript, the reply cut then
  const r = await runSession({
    replies: [streamedReply, { chunks: ['Of course.'] }],
    steps: [
      { at: 800, event: 'SpeechStarted' }, { at: 900, says: 'no wait' }, { at: 1000, event: 'BargeInDetected' },
      { at: 1300, event: 'SpeechStopped' }, { at: 2100, event: 'TurnEnded' },
    ],
    untilMs: 4000,
  });
  t.equal(r.session.ledger.interruptions, 1);
  const order = r.said.map((s) => `${s.speaker}${s.truncated ? ' (cut)' : ''}`);
  t.same(order, ['agent', 'agent (cut)', 'caller', 'agent'], `the transcript in the order things were said: ${JSON.stringify(r.said)}`);
  const history = r.dialog.requests[1].history.map((h) => h.role);
  t.same(history.slice(-2), ['agent', 'caller'], 'the dialog sees its cut reply before the words that cut it');
  t.equal(r.said.at(-1)?.text, 'Of course.');
});

t.test('a slow recogniser: each turn is cut at its own end, never merged with the words after it', async (t) => {
  // each finalize takes 3 s: the second and third turns end while the first is still being heard
  const r = await runSession({
    replies: [opening, { chunks: ['Thanks.'] }, { chunks: ['Noted.'] }, { chunks: ['Sure.'] }],
    stageMs: { stt: 3000 },
    steps: [
      { at: 1500, event: 'SpeechStarted' }, { at: 1600, says: 'My name is Ravi' }, { at: 1800, event: 'SpeechStopped' }, { at: 2600, event: 'TurnEnded' },
      { at: 3000, event: 'SpeechStarted' }, { at: 3100, says: 'I want to buy' }, { at: 3300, event: 'SpeechStopped' }, { at: 4100, event: 'TurnEnded' },
      { at: 4500, event: 'SpeechStarted' }, { at: 4600, says: 'in Pune' }, { at: 4800, event: 'SpeechStopped' }, { at: 5600, event: 'TurnEnded' },
    ],
    untilMs: 12_000,
  });
  const finalizedAt = r.actions.filter((a) => a.type === 'FinalizeTranscript').map((a) => a.at);
  t.same(finalizedAt, [2600, 4100, 5600], 'each turn finalized at its end');
  t.same(r.said.filter((s) => s.speaker === 'caller').map((s) => s.text), ['My name is Ravi', 'I want to buy', 'in Pune'],
    'three turns, in order, each with its own words');
});

t.test('a backchannel over a reply resumes it from the same frame, nothing re-synthesised', async (t) => {
  const r = await runSession({
    replies: [{ chunks: ['May I have your full name and the best number to reach you?'] }],
    steps: [{ at: 800, event: 'SpeechStarted' }, { at: 850, says: 'mm hmm' }, { at: 900, event: 'BargeInDetected' }, { at: 1100, event: 'SpeechStopped' }],
    untilMs: 3000,
  });
  t.equal(r.carrier.clears, 0);
  t.equal(r.carrier.framesSent, 24 + 59, 'every frame sent exactly once');
  t.ok(r.actions.some((a) => a.type === 'ResumePlayout'));
  t.same(r.said.map((s) => s.text), ['This is an AI assistant.', 'May I have your full name and the best number to reach you?']);
  t.equal(r.session.ledger.backchannels, 1);
  t.equal(r.session.ledger.interruptions, 0);
});

t.test('hang-up while thinking: the model is aborted, nothing is said, the call ends with the reason', async (t) => {
  const r = await runSession({
    replies: [opening, { chunks: ['Let me think.'], stallAfter: 0 }],
    steps: [{ at: 1500, event: 'SpeechStarted' }, { at: 1600, says: 'My name is Ravi' }, { at: 2600, event: 'TurnEnded' }, { at: 2800, hangup: 'hangup_api' }],
    untilMs: 4000,
  });
  t.equal(r.endReason, 'hangup_api');
  t.equal(r.session.state.phase, 'ended');
  t.equal(r.dialog.aborted, 1);
  t.same(r.said.map((s) => s.text), ['This is an AI assistant.', 'May I have your name?', 'My name is Ravi']);
  t.ok(r.carrier.closed, 'our leg of the media stream is closed');
});

t.test('transfer while speaking: the agent stops, the carrier bridges, the AI leg ends as transferred', async (t) => {
  const r = await runSession({
    replies: [{ chunks: ['May I have your full name and the best number to reach you?'] }],
    steps: [{ at: 1000, transfer: '+14155550199' }],
    untilMs: 3000,
  });
  t.same(r.transfers, ['+14155550199']);
  t.equal(r.endReason, 'transferred');
  t.equal(r.carrier.clears, 1);
  t.ok(r.said.find((s) => s.truncated), 'what was heard of the reply is kept');
});

t.test('a transfer the carrier refuses leaves the call with the agent', async (t) => {
  const r = await runSession({ replies: [opening], steps: [{ at: 1000, transfer: '+14155550199' }], untilMs: 2500, transferFails: 'number busy' });
  t.equal(r.endReason, undefined);
  t.equal(r.session.state.phase, 'listening');
});
