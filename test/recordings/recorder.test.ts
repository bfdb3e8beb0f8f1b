/**
 * The two-channel recorder (src/recordings/recorder.ts): caller frames in order, agent frames where they play,
 * cleared agent frames removed, silence where nothing played, streamed out in blocks while the call runs with
 * a bounded tail in memory, and the file sink of src/recordings/store.ts producing a WAV the reader accepts.
 */
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BLOCK_FRAMES, CallRecorder, type RecordingSink } from '../../src/recordings/recorder.js';
import { RecordingStore } from '../../src/recordings/store.js';
import { mulawDecode, mulawEncode, readWav, wavHeader } from '../../src/audio/index.js';

/** Collects the blocks; finish() assembles the WAV the file sink would have written. */
class MemorySink implements RecordingSink {
  blocks: Uint8Array[] = [];
  wav?: Uint8Array;
  write(pcm: Uint8Array): void { this.blocks.push(pcm.slice()); }
  async finish(dataBytes: number): Promise<string> {
    const body = Buffer.concat(this.blocks);
    if (body.length !== dataBytes) throw new Error(`told ${dataBytes} bytes, got ${body.length}`);
    this.wav = Buffer.concat([wavHeader({ sampleRateHz: 8000, channels: 2, dataBytes }), body]);
    return 'memory';
  }
}
async function recorded(r: CallRecorder, sink: MemorySink): Promise<Uint8Array> { await r.finish(); return sink.wav!; }

/** a frame as the session hands it over: PCM16 after the phone line's mu-law */
const frame = (v: number) => mulawDecode(mulawEncode(new Int16Array(160).fill(v)));
const decoded = (v: number) => frame(v)[0];

/** The two channels of a PCM16 stereo WAV (finds the data chunk, de-interleaves). */
function channels(wav: Uint8Array): [Int16Array, Int16Array] {
  const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
  if (view.getUint16(22, true) !== 2) throw new Error('not a two-channel WAV');
  let off = 12;
  while (String.fromCharCode(...wav.subarray(off, off + 4)) !== 'data') off += 8 + view.getUint32(off + 4, true);
  const n = view.getUint32(off + 4, true) / 4;
  const [a, b] = [new Int16Array(n), new Int16Array(n)];
  for (let i = 0; i < n; i++) { a[i] = view.getInt16(off + 8 + i * 4, true); b[i] = view.getInt16(off + 10 + i * 4, true); }
  return [a, b];
}

t.test('the mu-law code used for untouched stretches decodes to 0', async (t) => {
  t.equal(mulawDecode(new Uint8Array([0xff]))[0], 0);
});

t.test('caller in order, agent at its slots, cleared frames removed, holes silent', async (t) => {
  const sink = new MemorySink();
  const r = new CallRecorder(sink);
  for (let i = 0; i < 5; i++) r.caller(frame(1000 * (i + 1)));
  r.agent(1, frame(-2000));
  r.agent(3, frame(3000));
  r.agent(6, frame(4000));
  r.dropAgentFrom(6); // cleared before it played
  const [caller, agent] = channels(await recorded(r, sink));
  t.equal(caller.length, 5 * 160, 'as long as the longer channel (the caller here, after the drop)');
  t.same([0, 1, 2, 3, 4].map((i) => caller[i * 160 + 7]), [1, 2, 3, 4, 5].map((k) => decoded(1000 * k)));
  t.same([0, 1, 2, 3, 4].map((i) => agent[i * 160 + 7]), [0, decoded(-2000), 0, decoded(3000), 0]);
});

t.test('a drop ends the agent channel at its last remaining frame; short frames are padded', async (t) => {
  const sink = new MemorySink();
  const r = new CallRecorder(sink);
  r.agent(0, frame(500));
  r.agent(4, frame(600));
  r.agent(5, frame(700));
  r.dropAgentFrom(4);
  r.caller(frame(100).subarray(0, 80));
  const [caller, agent] = channels(await recorded(r, sink));
  t.equal(agent.length, 160, 'frames 4 and 5 gone, and the gap before them with them');
  t.equal(agent[0], decoded(500));
  t.equal(caller[79], decoded(100));
  t.equal(caller[80], 0, 'the rest of a short frame is silence');
});

t.test('an hour of frames on each channel: streamed out while it runs, a bounded tail held', async (t) => {
  const sink = new MemorySink();
  const r = new CallRecorder(sink);
  const f = frame(1234);
  const n = 3600 * 50;
  let maxHeld = 0;
  for (let i = 0; i < n; i++) { r.caller(f); r.agent(i + 3, f); maxHeld = Math.max(maxHeld, r.heldFrames); }
  t.ok(maxHeld <= BLOCK_FRAMES + 3, `at most a block and the agent's lead in memory (held ${maxHeld} frames)`);
  t.equal(sink.blocks.length, n / BLOCK_FRAMES, 'every full block already out before the call ended');
  const [caller, agent] = channels(await recorded(r, sink));
  t.equal(caller.length, n * 160 + 3 * 160, 'the agent\'s last frames (3 ahead) extend the recording');
  t.equal(agent[agent.length - 1], decoded(1234));
  t.equal(agent[0], 0, 'the agent started 3 frames in');
});

t.test('a clear spanning a block boundary; frames settled before it are kept; finish is idempotent', async (t) => {
  const sink = new MemorySink();
  const r = new CallRecorder(sink);
  for (let i = 0; i < BLOCK_FRAMES - 2; i++) r.caller(frame(100));
  for (let k = 0; k < 8; k++) r.agent(BLOCK_FRAMES - 2 + k, frame(2000 + k * 100)); // agent ahead of the caller
  r.caller(frame(100)); r.caller(frame(100)); // the block settles here: agent frames up to it are final
  t.equal(sink.blocks.length, 1);
  r.dropAgentFrom(BLOCK_FRAMES + 3); // barge-in: the caller heard 3 frames past the block
  r.dropAgentFrom(5); // a drop before the settled frontier cannot unsay what was already written
  const wav = await recorded(r, sink);
  const blocks = sink.blocks.length;
  t.equal(await r.finish(), 'memory', 'finish twice: same result');
  const [, agent] = channels(wav);
  t.equal(agent.length, (BLOCK_FRAMES) * 160, 'the unsettled agent frames were dropped by the second drop');
  t.equal(agent[(BLOCK_FRAMES - 2) * 160 + 5], decoded(2000));
  t.equal(agent[(BLOCK_FRAMES - 1) * 160 + 5], decoded(2100), 'settled agent frames survive a later clear');
  r.caller(frame(1)); r.agent(0, frame(1));
  t.equal(sink.blocks.length, blocks, 'nothing recorded after finish');
});

t.test('the file sink writes a WAV the reader accepts, the same bytes as the memory sink', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rec-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = new RecordingStore(dir);
  const id = 'call_0123456789abcdef01234567';
  const file = new CallRecorder(store.open(id));
  const mem = new MemorySink();
  const copy = new CallRecorder(mem);
  for (let i = 0; i < 2.5 * BLOCK_FRAMES; i++) {
    for (const r of [file, copy]) { r.caller(frame(i * 10)); if (i % 3 === 0) r.agent(i + 1, frame(-i * 10)); }
  }
  const path = await file.finish();
  await copy.finish();
  t.equal(path, join(dir, 'recordings', `${id}.wav`));
  const bytes = readFileSync(path);
  t.same(bytes, Buffer.from(mem.wav!), 'header patched with the final sizes');
  const wav = readWav(bytes);
  t.equal(wav.channels, 2);
  t.equal(wav.sampleRateHz, 8000);
  t.equal(wav.pcm.length, (2.5 * BLOCK_FRAMES + 1) * 160, 'every sample frame read back (downmixed)');
  t.equal(statSync(path).size, 44 + (2.5 * BLOCK_FRAMES + 1) * 160 * 4);
  t.throws(() => store.open('../etc/passwd'), RangeError);
});

t.test('a file that cannot be written makes finish() reject (the call ends without a recording_url)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rec-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'recordings'), 'a file where the directory should be');
  t.throws(() => new RecordingStore(dir).open('call_0123456789abcdef01234567'), /EEXIST|ENOTDIR/);
  const store = new RecordingStore(join(dir, 'fresh'));
  const sink = store.open('call_0123456789abcdef01234567');
  rmSync(join(dir, 'fresh'), { recursive: true, force: true }); // gone before the file is opened
  const r = new CallRecorder(sink);
  r.caller(frame(1));
  await t.rejects(r.finish(), /ENOENT/);
});
