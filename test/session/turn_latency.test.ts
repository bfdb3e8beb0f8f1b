/**
 * The per-turn latency split in call metrics (metrics.turns): each stage of a caller turn is recorded from the
 * moment the previous one ended, in order (endpointing, final transcript, first model text, first whole sentence,
 * first synthesised audio, first frame sent), and they add up to the total. The harness clock moves 20 ms per frame
 * and each scripted adapter takes a known time, so every stage is known to the frame.
 */
import t, { type Test } from 'tap';
import { runSession, type Script } from './harness.js';

// the caller speaks after the opening (disclosure + question) is over; the detector ends the turn 800 ms after
const turn = (extra: Partial<Script> = {}): Script => ({
  replies: [{ chunks: ['May I have your name?'] }, { chunks: ['Thanks Ravi', ', noted.', ' Anything', ' else?'] }],
  steps: [{ at: 3000, event: 'SpeechStarted' }, { at: 3100, says: 'Ravi' }, { at: 3400, event: 'SpeechStopped' }, { at: 4200, event: 'TurnEnded' }],
  untilMs: 6000, stageMs: { stt: 60, firstText: 100, chunk: 40, tts: 120 }, ...extra,
});
const near = (t: Test, got: number, want: number, what: string) => t.ok(got >= want && got <= want + 20, `${what}: ${got} ms (expected ${want}, at most one frame more)`);

t.test('each stage of a turn is recorded, in order, and they add up to the total', async (t) => {
  const r = await runSession(turn());
  const turns = r.session.ledger.metrics().turns;
  t.equal(turns.length, 1, 'the caller turn (the opening is no turn)');
  const x = turns[0];
  t.equal(x.endpointing_ms, 800, 'endpointing: speech end to the turn-end decision (media time)');
  near(t, x.stt_ms, 60, 'final transcript');
  near(t, x.dialog_ms, 100, 'first model text');
  // "Thanks Ravi, noted." is whole once " Anything" shows it ended: two chunks later
  near(t, x.sentence_ms, 80, 'first whole sentence');
  near(t, x.tts_ms, 120, 'first synthesised audio');
  t.ok(x.send_ms >= 0 && x.send_ms <= 20, `first frame sent ${x.send_ms} ms after the audio`);
  t.equal(Math.round(x.total_ms * 100) / 100, Math.round((x.endpointing_ms + x.stt_ms + x.dialog_ms + x.sentence_ms + x.tts_ms + x.send_ms) * 100) / 100, 'the stages add up to the total');
  t.equal(x.speech_end_ms, 3400);
  t.same(r.session.ledger.metrics().latency_p50_ms, Math.round(x.total_ms * 10) / 10);
});

t.test('a whole-reply session speaks only once the model finished: the same sentence, later first audio', async (t) => {
  const streamed = (await runSession(turn())).session.ledger.turns[0];
  const whole = (await runSession(turn({ replyMode: 'whole' }))).session.ledger.turns[0];
  near(t, whole.sentence_ms, 80, 'the chunker found the first sentence at the same time');
  // the rest of the reply (" else?", 40 ms) comes before any synthesis
  near(t, whole.tts_ms, streamed.tts_ms + 40, 'synthesis waited for the end of the reply');
  t.ok(whole.total_ms > streamed.total_ms, `first agent audio ${whole.total_ms} ms whole vs ${streamed.total_ms} ms streamed`);
});
