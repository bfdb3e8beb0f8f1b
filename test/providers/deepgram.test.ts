/**
 * The Deepgram live adapter against a local fake of /v1/listen: the connect query and auth, interim then final
 * results, Finalize at our end of turn, interim words settling a barge-in through the session machine, KeepAlive
 * while no audio flows, CloseStream at hang-up, a socket cut mid-utterance (reconnect and replay of the uncovered
 * audio, words neither lost nor doubled), malformed messages, a refused key, refused and failing reconnects, and
 * whole-utterance transcription.
 */
import t, { type Test } from 'tap';
import { DeepgramStt, type DeepgramSttOptions } from '../../src/providers/deepgram/index.js';
import { DeepgramStream } from '../../src/providers/deepgram/stream.js';
import { ReplayBuffer } from '../../src/providers/deepgram/replay.js';
import { AdapterError, type SttStream, type TranscriptResult } from '../../src/adapters/types.js';
import { createSessionState, step } from '../../src/session/machine.js';
import type { SessionAction } from '../../src/session/events.js';
import { createLogger } from '../../src/log.js';
import { mulawDecode, mulawEncode } from '../../src/audio/g711.js';
import { startFakeDeepgram, type FakeDeepgramOptions } from '../fakes/deepgram.js';

const KEY = 'dg-test-key';
const log = createLogger('silent');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** polls every 10 ms until `cond` holds or `ms` pass; the caller asserts what it needed */
async function waitFor(cond: () => unknown, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; !cond() && Date.now() < end;) await sleep(10);
}

async function setup(t: Test, fakeOpts: FakeDeepgramOptions = {}, sttOpts: Partial<DeepgramSttOptions> = {}) {
  const fake = await startFakeDeepgram({ apiKey: KEY, ...fakeOpts });
  t.teardown(() => fake.close());
  const stt = new DeepgramStt({ apiKey: KEY, url: fake.url, model: 'nova-3', log, reconnectBackoffMs: 10, ...sttOpts });
  return { fake, stt };
}

/** A call's caller audio, 20 ms frames: 's' = speech (a loud tone), '_' = silence, each char = 100 ms. */
class Caller {
  atMs = 0;
  constructor(private readonly s: SttStream, private readonly rate = 8000) {}
  play(pattern: string): void {
    for (const ch of pattern) {
      for (let f = 0; f < 5; f++) {
        const pcm = new Int16Array(this.rate / 50);
        if (ch === 's') for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(3000 * Math.sin((2 * Math.PI * 300 * (this.atMs * this.rate / 1000 + i)) / this.rate));
        this.s.write(pcm, this.atMs);
        this.atMs += 20;
      }
    }
  }
}

function collect(s: SttStream): TranscriptResult[] {
  const out: TranscriptResult[] = [];
  s.onResult((r) => out.push(r));
  return out;
}

const isStream = (s: SttStream) => s as DeepgramStream;

t.test('happy path: connect query and auth, interim words at once, speech_final, Finalize at our end of turn', async (t) => {
  const { fake, stt } = await setup(t, { script: ['My budget is eighty lakh.'] });
  const s = stt.open({ callId: 'call_a', language: 'en-IN', sampleRateHz: 8000 });
  t.teardown(() => s.close());
  const results = collect(s);
  const caller = new Caller(s);
  caller.play('__ssssssssss______'); // speech 200..1200 ms, then 600 ms of quiet
  const r = await s.finalize({ timeoutMs: 3000 });
  t.match(r, { text: 'My budget is eighty lakh.', final: true, confidence: 0.97 });
  t.ok(Math.abs(r.endMs - 1500) <= 20, `the final ends at the endpoint (1200 + 300 ms), got ${r.endMs}`);
  const c = fake.connections[0];
  t.same(c.query, {
    model: 'nova-3', language: 'en-IN', encoding: 'mulaw', sample_rate: '8000', channels: '1', interim_results: 'true',
    endpointing: '300', utterance_end_ms: '1000', vad_events: 'true', smart_format: 'true',
  });
  t.equal(c.authorization, `Token ${KEY}`);
  t.equal(c.bytes, 18 * 800, 'mu-law: one byte per sample');
  t.ok(c.controls.some((x) => x.type === 'Finalize'), 'Finalize sent at our end of turn');
  const interims = results.filter((x) => !x.final);
  t.same(interims.map((x) => x.text), ['My', 'My budget', 'My budget is', 'My budget is eighty', 'My budget is eighty lakh.']);
  t.ok(interims[0].endMs <= 240, `first interim word after one frame of speech (media ${interims[0].endMs} ms)`);
  t.same(results.filter((x) => x.final).map((x) => x.text), ['My budget is eighty lakh.'], 'the final segment reaches listeners too');
  t.ok(fake.connections[0].sent.some((m) => m.type === 'SpeechStarted'), 'vad_events gives SpeechStarted');

  // the next turn gets only its own words; a turn with no words is ''
  caller.play('__________');
  t.equal((await s.finalize()).text, '', 'silence finalizes to no words');
  t.equal(fake.connections.length, 1, 'one socket for the call');
});

t.test('Finalize before Deepgram\'s own endpoint flushes the words of the turn (from_finalize)', async (t) => {
  const { fake, stt } = await setup(t, { script: ['yes please'] });
  const s = stt.open({ callId: 'call_b', language: 'en-US', sampleRateHz: 8000 });
  t.teardown(() => s.close());
  new Caller(s).play('_ssss_'); // 100 ms of quiet after speech: under the 300 ms endpointing
  const r = await s.finalize({ timeoutMs: 3000 });
  t.equal(r.text, 'yes please');
  const fin = fake.connections[0].sent.find((m) => m.from_finalize === true);
  t.match(fin, { type: 'Results', is_final: true, from_finalize: true }, 'answered by a from_finalize result');
});

t.test('interim words settle a barge-in: a backchannel does not, a real interruption does before the final', async (t) => {
  const { stt } = await setup(t, { script: ['uh huh', 'wait I have a question about the price'] });
  const s = stt.open({ callId: 'call_c', language: 'en-US', sampleRateHz: 8000 });
  t.teardown(() => s.close());
  // the machine in the middle of a pending barge-in, as the shell would have it after BargeInDetected
  const state = createSessionState({ hasDisclosure: false, noInputMs: 6000, escalationHoldMs: 3000, voicemail: 'hangup' });
  const fed: Array<{ text: string; final: boolean; actions: SessionAction[] }> = [];
  const interrupt = () => {
    state.phase = 'interrupted';
    state.reply = { id: 1, kind: 'answer', callerText: '', audible: true, done: false };
  };
  // exactly what src/session/shell.ts does with the stream's results
  s.onResult((r) => { fed.push({ text: r.text, final: r.final, actions: r.final ? [] : step(state, { type: 'TranscriptInterim', text: r.text }) }); });
  interrupt();
  const caller = new Caller(s);
  caller.play('__sss______');
  await s.finalize();
  const backchannel = fed.filter((f) => !f.final);
  t.same(backchannel.map((f) => f.text), ['uh', 'uh huh']);
  t.ok(backchannel.every((f) => f.actions.length === 0), 'a backchannel leaves the barge-in pending');
  t.equal(state.phase, 'interrupted');

  fed.length = 0;
  caller.play('ssssssss______');
  await s.finalize();
  const deciding = fed.findIndex((f) => f.actions.some((a) => a.type === 'ResolveBargeIn'));
  t.equal(deciding, 0, 'the very first interim word ("wait") decides it');
  t.equal(fed[deciding].final, false);
  t.match(fed[deciding].actions, [{ type: 'ResolveBargeIn', verdict: 'words' }, { type: 'RecordInterruption' }, { type: 'CutReply', replyId: 1 }]);
  t.ok(fed.findIndex((f) => f.final) > deciding, 'decided before the final result');
  t.equal(state.phase, 'listening');
});

t.test('KeepAlive goes out while no audio flows and keeps the socket; without it Deepgram closes (NET-0001) and the stream reconnects', async (t) => {
  const { fake, stt } = await setup(t, { script: [], idleTimeoutMs: 800 }, { keepAliveMs: 120 });
  const s = stt.open({ callId: 'call_d', language: 'en-US', sampleRateHz: 8000 });
  t.teardown(() => s.close());
  new Caller(s).play('__');
  await s.finalize();
  const c = fake.connections[0];
  const finalizedAt = c.controls.find((x) => x.type === 'Finalize')!.wallAt; // the last non-KeepAlive message
  const kept = () => c.controls.filter((x) => x.type === 'KeepAlive').length;
  // at least 4 KeepAlives in, and the fake's 800 ms idle timeout passed since the last other message
  await waitFor(() => c.closed || (kept() >= 4 && performance.now() - finalizedAt > 1000));
  const keepAlives = c.controls.filter((x) => x.type === 'KeepAlive');
  t.ok(keepAlives.length >= 4, `KeepAlive every ~120 ms of no audio (${keepAlives.length} sent)`);
  t.ok(keepAlives.every((k) => k.atMs === 200), 'sent while no audio came');
  t.equal(c.closed, undefined, 'the socket stays open past the idle timeout');
  // one may be on the wire still: after the hang-up's CloseStream (sent last, in order) the fake has them all
  s.close();
  await waitFor(() => c.controls.some((x) => x.type === 'CloseStream'));
  t.equal(isStream(s).stats.keepAlives, c.controls.filter((x) => x.type === 'KeepAlive').length, 'every KeepAlive sent is counted');

  const { fake: strict, stt: quiet } = await setup(t, { idleTimeoutMs: 200 }, { keepAliveMs: 60_000 });
  const q = quiet.open({ callId: 'call_e', language: 'en-US', sampleRateHz: 8000 });
  t.teardown(() => q.close());
  new Caller(q).play('__');
  await waitFor(() => strict.connections.length >= 2); // handshake, 200 ms idle, close, a second handshake
  t.match(strict.connections[0].closed, { code: 1011, by: 'server' }, 'NET-0001 without KeepAlive');
  t.ok(strict.connections.length >= 2, 'a new socket replaces it');
});

t.test('hang-up sends CloseStream; Deepgram summarises and closes; the stream is done', async (t) => {
  const { fake, stt } = await setup(t, { script: ['hello'] });
  const s = stt.open({ callId: 'call_f', language: 'en-US', sampleRateHz: 8000 });
  new Caller(s).play('__sss');
  // open, with all 500 ms in: a close() before the open cuts the socket without CloseStream
  await waitFor(() => fake.connections[0]?.audioMs >= 500);
  const results = collect(s);
  s.close();
  s.close(); // idempotent
  const c = fake.connections[0];
  await waitFor(() => c.closed);
  t.same(c.controls.map((x) => x.type), ['CloseStream']);
  t.match(c.closed, { code: 1000, by: 'server' });
  t.ok(c.sent.some((m) => m.type === 'Metadata' && m.duration === 0.5), 'summary Metadata sent before the close');
  t.same(results, [], 'nothing reaches listeners after close');
  const err = await s.finalize().catch((e: unknown) => e);
  t.match(err, { code: 'canceled' });
  t.equal(fake.connections.length, 1, 'a hang-up is not a drop: no reconnect');
});

t.test('a socket cut mid-utterance: reconnect, replay what no final covered, the words come once', async (t) => {
  const { fake, stt } = await setup(t, { script: ['hello', 'I would like a three bedroom flat'], dropAtMs: [1800] });
  const s = stt.open({ callId: 'call_g', language: 'en-US', sampleRateHz: 8000 });
  t.teardown(() => s.close());
  const caller = new Caller(s);
  caller.play('__ssssss______'); // "hello", final at the endpoint, then covered by the Finalize
  t.equal((await s.finalize()).text, 'hello');
  caller.play('ssssssss______'); // 1400..2200 speech; the socket is cut at 1800 ms of its audio, mid-utterance
  const r = await s.finalize({ timeoutMs: 3000 });
  t.equal(r.text, 'I would like a three bedroom flat', 'the interrupted utterance, once');
  t.equal(fake.connections.length, 2, 'one reconnect');
  const [cut, fresh] = fake.connections;
  t.match(cut.closed, { code: 1006, by: 'server' });
  // audio goes out in 60 ms messages: the cut comes with the first message past 1800 ms
  t.ok(cut.audioMs >= 1800 && cut.audioMs < 1860, `cut at ${cut.audioMs} ms of audio`);
  t.equal(fresh.audioMs, 2800 - 1400, 'the new socket got the audio after the last covered point, not the whole call');
  t.ok(fresh.controls.some((x) => x.type === 'Finalize'), 'the lost Finalize is asked again');
  t.equal(isStream(s).stats.connects, 2);
  // media times stay call times after the reconnect
  t.ok(r.endMs > 2200 && r.endMs <= 2800, `end of the utterance in call time (${r.endMs})`);
});

t.test('Finalize goes after the audio still held for the next 60 ms message', async (t) => {
  const { fake, stt } = await setup(t, { script: ['hello'] });
  const s = stt.open({ callId: 'call_batch', language: 'en-US', sampleRateHz: 8000 });
  t.teardown(() => s.close());
  const caller = new Caller(s);
  caller.play('__');
  for (let i = 0; i < 100 && !(fake.connections[0]?.audioMs >= 200); i++) await sleep(10); // open, replay sent
  caller.play('s'); // 100 ms: one 60 ms message, 40 ms held
  await s.finalize({ timeoutMs: 3000 });
  const fin = fake.connections[0].controls.find((c) => c.type === 'Finalize');
  t.equal(fin?.atMs, 300, 'every frame written before finalize() reached Deepgram before the Finalize');
});

t.test('malformed messages are ignored and the stream goes on', async (t) => {
  const { fake, stt } = await setup(t, { script: ['first', 'second'] });
  const s = stt.open({ callId: 'call_h', language: 'en-US', sampleRateHz: 8000 });
  t.teardown(() => s.close());
  const results = collect(s);
  const caller = new Caller(s);
  caller.play('_ss____');
  t.equal((await s.finalize()).text, 'first');
  fake.inject('not json at all');
  fake.inject(Buffer.from([1, 2, 3]));
  fake.inject('{"type":"Results","channel":{}}');
  fake.inject('{"type":"Results","start":0,"duration":1,"channel":{"alternatives":[{"transcript":7}]}}');
  fake.inject('[1,2,3]');
  fake.inject('{"type":"SomethingNew","x":1}');
  caller.play('_ss____');
  t.equal((await s.finalize()).text, 'second');
  t.equal(isStream(s).stats.malformed, 6);
  t.equal(fake.connections.length, 1, 'no reconnect over bad messages');
  t.notOk(results.some((r) => r.text.includes('7')));
});

t.test('a refused key fails the stream at once, without retries', async (t) => {
  const { fake, stt } = await setup(t, {}, { apiKey: 'dg-wrong' });
  const s = stt.open({ callId: 'call_i', language: 'en-US', sampleRateHz: 8000 });
  t.teardown(() => s.close());
  new Caller(s).play('_ss');
  const err = await s.finalize({ timeoutMs: 2000 }).catch((e: unknown) => e) as AdapterError;
  t.ok(err instanceof AdapterError);
  t.match(err, { adapter: 'stt', code: 'failed', retryable: false });
  t.match(err.message, /401.*DEEPGRAM_API_KEY/);
  t.notMatch(err.message, /dg-wrong/);
  await sleep(100);
  t.same(fake.refusals, [401], 'tried once');
  await t.rejects(s.finalize(), { code: 'failed' }, 'later turns fail the same way, quickly');
});

t.test('a refused upgrade (429, 503) is retried with backoff; too many failures give up as unavailable', async (t) => {
  const { fake, stt } = await setup(t, { script: ['okay then'], refuse: [429, 503] });
  const s = stt.open({ callId: 'call_j', language: 'en-US', sampleRateHz: 8000 });
  t.teardown(() => s.close());
  new Caller(s).play('_sss____');
  t.equal((await s.finalize({ timeoutMs: 3000 })).text, 'okay then', 'audio written while connecting is not lost');
  t.same(fake.refusals, [429, 503]);

  const { stt: doomed } = await setup(t, { refuse: [503, 503, 503, 503] }, { maxReconnects: 2 });
  const d = doomed.open({ callId: 'call_k', language: 'en-US', sampleRateHz: 8000 });
  t.teardown(() => d.close());
  new Caller(d).play('_s');
  const err = await d.finalize({ timeoutMs: 3000 }).catch((e: unknown) => e);
  t.match(err, { code: 'unavailable', retryable: true });
});

t.test('a finalize that times out does not take the next turn\'s words', async (t) => {
  // finals take 100 ms to come: a 30 ms deadline surely passes first
  const { fake, stt } = await setup(t, { script: ['one two', 'three four'], finalLatencyMs: 100 });
  const s = stt.open({ callId: 'call_l', language: 'en-US', sampleRateHz: 8000 });
  t.teardown(() => s.close());
  const caller = new Caller(s);
  caller.play('_ss____');
  await s.finalize();
  fake.connections[0].sent.length = 0;
  caller.play('_ss____');
  const err = await s.finalize({ timeoutMs: 30 }).catch((e: unknown) => e);
  t.match(err, { code: 'timeout' });
  caller.play('__');
  t.equal((await s.finalize()).text, 'three four', 'the words are kept for the next finalize');
});

t.test('transcribe: a short socket per utterance, CloseStream flushes it', async (t) => {
  const { fake, stt } = await setup(t, { script: ['eighty lakh'] });
  const pcm = new Int16Array(8000);
  for (let i = 1600; i < 6400; i++) pcm[i] = Math.round(3000 * Math.sin((2 * Math.PI * 300 * i) / 8000));
  const r = await stt.transcribe(pcm, { language: 'hi', sampleRateHz: 8000, timeoutMs: 3000 });
  t.match(r, { text: 'eighty lakh', final: true, startMs: 0, endMs: 1000 });
  t.match(fake.connections[0], { query: { encoding: 'mulaw', sample_rate: '8000', language: 'hi' }, audioMs: 1000 });
  t.same(fake.connections[0].controls.map((c) => c.type), ['CloseStream']);

  const wide = new Int16Array(16000);
  const r2 = await stt.transcribe(wide, { language: 'en', sampleRateHz: 16000 });
  t.equal(r2.text, '');
  t.match(fake.connections[1], { query: { encoding: 'linear16', sample_rate: '16000' }, bytes: 32000 });

  const { stt: bad } = await setup(t, {}, { apiKey: 'nope' });
  await t.rejects(bad.transcribe(pcm, { language: 'en', sampleRateHz: 8000 }), { code: 'failed' });
});

t.test('finalize waits for the service: a slow final result is waited for, in order', async (t) => {
  const { stt } = await setup(t, { script: ['one moment'], finalLatencyMs: 150 });
  const s = stt.open({ callId: 'call_m', language: 'en-US', sampleRateHz: 8000 });
  t.teardown(() => s.close());
  const results = collect(s);
  new Caller(s).play('_sss_');
  const t0 = performance.now();
  const r = await s.finalize({ timeoutMs: 3000 });
  t.equal(r.text, 'one moment');
  t.ok(performance.now() - t0 >= 140, `resolved after the final came (${Math.round(performance.now() - t0)} ms)`);
  t.same(results.map((x) => x.final), [false, false, true], 'interims first, then the final');
});

t.test('re-encoding the session\'s PCM gives back the carrier\'s mu-law bytes (only -0 becomes +0)', async (t) => {
  const all = new Uint8Array(256).map((_, i) => i);
  const back = mulawEncode(mulawDecode(all));
  t.same([...all].filter((u) => back[u] !== u), [0x7f]);
  t.equal(back[0x7f], 0xff);
});

t.test('the replay buffer drops covered audio and keeps its bound', async (t) => {
  const b = new ReplayBuffer(100);
  const chunk = (atMs: number) => ({ atMs, durMs: 20, bytes: new Uint8Array(160) });
  for (let at = 0; at < 200; at += 20) b.push(chunk(at));
  t.equal(b.durationMs, 100);
  t.equal(b.droppedMs, 100);
  t.equal(b.chunks[0].atMs, 100);
  b.coveredUntil(139.5);
  t.equal(b.chunks[0].atMs, 140, 'a chunk ending within 1 ms of the boundary is covered');
  b.clear();
  t.equal(b.durationMs, 0);
});
