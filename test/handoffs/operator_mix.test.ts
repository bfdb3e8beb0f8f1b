/**
 * The operator's voice on the caller's line, without a server: frames go straight out while the agent is silent,
 * wait and are mixed into the agent's frames while it speaks (one per agent frame, bounded), and the recording's
 * channel 2 holds agent and operator summed, a barge-in clear of the agent's audio keeping the operator's. The
 * operator's turns are cut by loudness and transcribed, or kept audio-only when the recogniser makes nothing of them.
 */
import t from 'tap';
import { mulawDecode, mulawEncode } from '../../src/audio/index.js';
import { MAX_WAITING, mixPcm, OperatorEar, OperatorMix } from '../../src/handoffs/operator_mix.js';
import { END_SILENCE_MS, OperatorSpeech, type OperatorTurn } from '../../src/handoffs/operator_speech.js';
import { CallRecorder, type RecordingSink } from '../../src/recordings/recorder.js';
import type { SttStream, TranscriptResult } from '../../src/adapters/types.js';

const frame = (v: number) => new Int16Array(160).fill(v);

t.test('the leg switch: straight to the caller while the agent is silent, mixed while it speaks', async (t) => {
  const mix = new OperatorMix();
  t.same(mix.arrive(frame(1000), false).map((f) => f[0]), [1000], 'agent silent: sent at once');
  t.same(mix.arrive(frame(2000), true), [], 'agent speaking: it waits');
  t.equal(mix.waiting, 1);
  const agent = mulawEncode(frame(3000));
  const out = mix.mixInto(agent);
  t.equal(out.operator?.[0], 2000, 'the waiting operator frame rides on the next agent frame');
  const heard = mulawDecode(out.frame)[0];
  t.ok(Math.abs(heard - 5000) < 200, `the caller hears both, summed (${heard})`);
  t.same(mix.mixInto(agent), { frame: agent }, 'nothing waiting: the agent frame goes unchanged');
  mix.arrive(frame(4000), true);
  t.same(mix.arrive(frame(5000), false).map((f) => f[0]), [4000, 5000], 'the agent stopped: what waited goes first, in order');
});

t.test('the wait is bounded: the oldest operator frames are dropped', async (t) => {
  const mix = new OperatorMix();
  for (let i = 0; i < MAX_WAITING + 3; i++) mix.arrive(frame(i + 1), true);
  t.equal(mix.waiting, MAX_WAITING);
  t.equal(mix.dropped, 3);
  t.equal(mix.mixInto(mulawEncode(frame(0))).operator?.[0], 4, 'the oldest kept is the fourth');
});

t.test('the operator hears the caller with the agent\'s own audio mixed in, one agent frame per caller frame', async (t) => {
  const ear = new OperatorEar();
  t.equal(ear.heard(frame(1000))[0], 1000, 'the agent silent: the caller alone');
  ear.agentSent(mulawEncode(frame(3000)));
  ear.agentSent(mulawEncode(frame(-3000)));
  const first = ear.heard(frame(1000))[0];
  t.ok(Math.abs(first - 4000) < 200, `the typed reply being spoken is heard with the caller (${first})`);
  const second = ear.heard(frame(0))[0];
  t.ok(Math.abs(second + 3000) < 200, `the next agent frame with the next caller frame (${second})`);
  t.equal(ear.heard(frame(7))[0], 7, 'nothing left: the caller alone');
  for (let i = 0; i < MAX_WAITING + 5; i++) ear.agentSent(mulawEncode(frame(100 * (i + 1))));
  const oldest = ear.heard(frame(0))[0];
  t.ok(Math.abs(oldest - 600) < 40, `at most MAX_WAITING agent frames wait: the oldest kept is the sixth (${oldest})`);
});

t.test('mixing clips instead of wrapping', async (t) => {
  t.same([...mixPcm(Int16Array.of(30000, -30000), Int16Array.of(10000, -10000))], [32767, -32768]);
  t.same([...mixPcm(Int16Array.of(1), Int16Array.of(1, 2))], [2, 2], 'the shorter one is padded with silence');
});

t.test('the recording sums the operator into channel 2, and a clear of the agent keeps it', async (t) => {
  const chunks: Uint8Array[] = [];
  const sink: RecordingSink = { write: (b) => { chunks.push(b.slice()); }, finish: async () => 'mem' };
  const rec = new CallRecorder(sink);
  for (let i = 0; i < 4; i++) rec.caller(frame(7));
  rec.agent(1, frame(100));
  rec.agent(2, frame(100));
  rec.operator(2, frame(50));
  rec.operator(3, frame(50));
  rec.dropAgentFrom(2);
  await rec.finish();
  const all = Buffer.concat(chunks);
  const ch2 = (f: number) => all.readInt16LE(f * 160 * 4 + 2);
  const ch1 = (f: number) => all.readInt16LE(f * 160 * 4);
  t.same([0, 1, 2, 3].map(ch2), [0, 100, 50, 50], 'agent, then the operator (the cleared agent frame gone)');
  t.same([0, 1, 2, 3].map(ch1), [7, 7, 7, 7], 'the caller untouched');
});

/** An STT stream that answers each finalize with the next scripted text, counting the frames written since the last. */
function scriptedStt(texts: string[]): SttStream & { finals: number[] } {
  let written = 0;
  const finals: number[] = [];
  return {
    finals,
    write: () => { written++; },
    finalize: async (): Promise<TranscriptResult> => { finals.push(written); written = 0; return { text: texts.shift() ?? '', final: true } as TranscriptResult; },
    onResult: () => {},
    close: () => {},
  };
}

t.test('the operator\'s turns: loudness starts one, quiet ends it, its place in the recording is kept', async (t) => {
  const stt = scriptedStt(['hello there', '']);
  const turns: OperatorTurn[] = [];
  const speech = new OperatorSpeech(stt, { timeoutMs: 1000, onTurn: (x) => turns.push(x), onError: () => {} });
  let at = 0;
  const feed = (v: number, n: number) => { for (let i = 0; i < n; i++) { speech.push(frame(v), at); at += 20; } };
  feed(0, 10); // quiet
  feed(3000, 50); // 1 s of voice
  feed(0, END_SILENCE_MS / 20); // the turn ends
  feed(0, 5);
  feed(3000, 5); // 100 ms: a click, not a turn
  feed(0, END_SILENCE_MS / 20);
  feed(3000, 30); // a turn the recogniser makes nothing of, ended by leaving
  await speech.flush();
  t.same(turns, [
    { text: 'hello there', offsetMs: 200, durationMs: 1000 },
    { text: '', offsetMs: at - 600, durationMs: 600 },
  ], 'two turns: words, then audio only (no text made up); the click is none');
});
