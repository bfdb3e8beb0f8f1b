/**
 * The two-channel recorder (src/recordings/recorder.ts): caller frames in order, agent frames where they play,
 * cleared agent frames removed, silence where nothing played, and hours of frames without a stack-sized spread.
 */
import t from 'tap';
import { CallRecorder } from '../../src/recordings/recorder.js';
import { mulawDecode, mulawEncode } from '../../src/audio/index.js';

const frame = (v: number) => mulawEncode(new Int16Array(160).fill(v));
const decoded = (v: number) => mulawDecode(frame(v))[0];

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
  const r = new CallRecorder();
  for (let i = 0; i < 5; i++) r.caller(frame(1000 * (i + 1)));
  r.agent(1, frame(-2000));
  r.agent(3, frame(3000));
  r.agent(6, frame(4000));
  r.dropAgentFrom(6); // cleared before it played
  const [caller, agent] = channels(r.toWav());
  t.equal(caller.length, 5 * 160, 'as long as the longer channel (the caller here, after the drop)');
  t.same([0, 1, 2, 3, 4].map((i) => caller[i * 160 + 7]), [1, 2, 3, 4, 5].map((k) => decoded(1000 * k)));
  t.same([0, 1, 2, 3, 4].map((i) => agent[i * 160 + 7]), [0, decoded(-2000), 0, decoded(3000), 0]);
});

t.test('a drop ends the agent channel at its last remaining frame; short frames are padded', async (t) => {
  const r = new CallRecorder();
  r.agent(0, frame(500));
  r.agent(4, frame(600));
  r.agent(5, frame(700));
  r.dropAgentFrom(4);
  r.caller(frame(100).subarray(0, 80));
  const [caller, agent] = channels(r.toWav());
  t.equal(agent.length, 160, 'frames 4 and 5 gone, and the gap before them with them');
  t.equal(agent[0], decoded(500));
  t.equal(caller[79], decoded(100));
  t.equal(caller[80], 0, 'the rest of a short frame is silence');
});

t.test('an hour of frames on each channel', async (t) => {
  const r = new CallRecorder();
  const f = frame(1234);
  const n = 3600 * 50;
  for (let i = 0; i < n; i++) { r.caller(f); r.agent(i, f); }
  const [caller, agent] = channels(r.toWav());
  t.equal(caller.length, n * 160);
  t.equal(agent[agent.length - 1], decoded(1234));
});
