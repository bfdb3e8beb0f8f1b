/** The callee's ear: agent audio in 20 ms frames by media time -> words as they come, end of the agent's turn. */
import t from 'tap';
import { CalleeEar, SimulatedCallee, type EarEvent } from '../../src/adapters/index.js';
import { simVoiceMulawFrames, decodeSimVoice } from '../../src/simvoice/index.js';
import { mulawDecode } from '../../src/audio/index.js';

/** Plays frames into the ear from atMs; a stop predicate may cut the agent off (barge-in). Returns events and end time. */
function play(ear: CalleeEar, frames: Uint8Array[], atMs: number, stop?: (e: EarEvent) => boolean) {
  const events: EarEvent[] = [];
  for (const f of frames) {
    const got = ear.hear(mulawDecode(f), atMs);
    events.push(...got);
    atMs += 20;
    if (stop && got.some(stop)) break;
  }
  return { events, atMs };
}

t.test('mu-law frames are 160 bytes and decode back', async (t) => {
  const frames = simVoiceMulawFrames('What budget do you have in mind?', { voice: 'agent' });
  t.ok(frames.every((f) => f.length === 160));
  const pcm = new Int16Array(frames.length * 160);
  frames.forEach((f, i) => pcm.set(mulawDecode(f), i * 160));
  t.equal(decodeSimVoice(pcm), 'What budget do you have in mind?');
});

t.test('two sentences with a short gap are one agent turn; the end comes after the silence, by media time', async (t) => {
  const ear = new CalleeEar({ endOfTurnSilenceMs: 600 });
  const first = play(ear, simVoiceMulawFrames('Hello, this is an AI assistant.'), 1000);
  const second = play(ear, simVoiceMulawFrames('May I have your name, please?'), first.atMs + 200);
  const words = [...first.events, ...second.events].filter((e) => e.type === 'words');
  t.ok(words.length >= 10, 'words arrive while the agent speaks');
  t.equal(words.at(-1)?.type === 'words' && words.at(-1)!.textSoFar, 'Hello, this is an AI assistant. May I have your name, please?');
  t.same([...first.events, ...second.events].filter((e) => e.type === 'agent_turn_ended'), [], 'no turn end inside the turn');
  t.same(ear.advance(second.atMs + 580), [], 'not before 600 ms of silence');
  t.same(ear.advance(second.atMs + 600), [{ type: 'agent_turn_ended', text: 'Hello, this is an AI assistant. May I have your name, please?', atMs: second.atMs + 600 }]);
  t.same(ear.advance(second.atMs + 5000), [], 'reported once');
});

t.test('barge-in: the callee cuts in, the truncated utterance gets no answer, the next one does', async (t) => {
  const callee = new SimulatedCallee('call_barge', 'barge_in');
  const ear = new CalleeEar();
  let said: string | undefined;
  const interject = (e: EarEvent) => { if (e.type !== 'words') return false; said = callee.duringAgentSpeech(e.textSoFar)?.say; return said !== undefined; };
  // the disclosure is heard out (it cannot be interrupted); the callee cuts into the question after it
  const disclosure = play(ear, simVoiceMulawFrames('Hello, this is an automated assistant calling on behalf of our team.'), 0, interject);
  t.equal(said, undefined, 'not during the disclosure');
  const heard = ear.advance(disclosure.atMs + 600).find((e) => e.type === 'agent_turn_ended');
  callee.reply(heard && heard.type === 'agent_turn_ended' ? heard.text : '');
  const cut = play(ear, simVoiceMulawFrames('May I have your name, please?'), disclosure.atMs + 2000, interject);
  t.equal(said, 'Who is this?');
  const ended = ear.advance(cut.atMs + 600).find((e) => e.type === 'agent_turn_ended');
  t.ok(ended && ended.type === 'agent_turn_ended' && !ended.text.includes('name'), 'truncated text heard');
  t.match(callee.reply(ended!.type === 'agent_turn_ended' ? ended!.text : ''), { say: null, hangUp: false }, 'waits for the agent to answer the interruption');
  const next = play(ear, simVoiceMulawFrames("Sorry, I didn't catch that. May I have your name, please?"), cut.atMs + 2000);
  const turn = ear.advance(next.atMs + 600).find((e) => e.type === 'agent_turn_ended');
  t.match(callee.reply(turn!.type === 'agent_turn_ended' ? turn!.text : ''), { say: `My name is ${callee.persona.name}.` });
});

t.test('subtitled ear (real speech): told words count once their audio plays; the turn ends on silence', async (t) => {
  const { SubtitledEar } = await import('../../src/adapters/sim/callee_ear.js');
  const ear = new SubtitledEar({ endOfTurnSilenceMs: 600 });
  // a loud tone stands for speech: this ear hears energy only, the words come from the carrier's side channel
  const loud = new Int16Array(160).map((_, i) => Math.round(8000 * Math.sin(i / 3)));
  ear.told('May I have your name, please?', 0);
  const events: EarEvent[] = [];
  let at = 0;
  for (let i = 0; i < 100; i++, at += 20) events.push(...ear.hear(loud, at)); // 2 s of agent speech
  ear.told('What are you looking for today?', 100); // the next reply: its audio has not arrived yet
  const words = events.filter((e) => e.type === 'words').map((e) => (e as { textSoFar: string }).textSoFar);
  t.same(words, ['May', 'May I', 'May I have', 'May I have your', 'May I have your name,', 'May I have your name, please?'], 'a word per 300 ms of speech, never past what was told');
  t.same(ear.advance(at + 580), [], 'not before 600 ms of silence');
  t.same(ear.advance(at + 600), [{ type: 'agent_turn_ended', text: 'May I have your name, please?', atMs: at + 600 }], 'only the sentence that played');
  ear.skip(50); // a clear dropped the next reply's frames unplayed
  for (let i = 0; i < 5; i++, at += 20) ear.hear(loud, at);
  t.match(ear.advance(at + 2000), [{ type: 'agent_turn_ended', text: 'What are you looking for today?' }], 'a cut sentence still counts as started');
});
