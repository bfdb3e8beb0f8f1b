/**
 * What the session knows of a caller turn crosses the gRPC speech link: the listen hint (the grammar recogniser's
 * turn grammar), the detector's speech start and stop (live decoding, the quiet held back), each after the audio
 * written before it. Before, the link carried audio and finalize only, so offline ears behind it heard every turn
 * whole against every field.
 */
import t from 'tap';
import { createAdapters, startAdapterServer, type AdapterSet } from '../../src/adapters/index.js';
import type { ListenHint, SttStream } from '../../src/adapters/types.js';
import { earsStats, OfflineStt } from '../../src/speech/ears/stt.js';
import { closeSpeechPool } from '../../src/speech/pool.js';
import { phoneWords } from '../speech/helpers/phone_line.js';

t.teardown(closeSpeechPool);

const frame = (n = 160) => new Int16Array(n);

t.test('hint, speech start and stop arrive in order with the audio; Recognize carries the hint', async (t) => {
  const log: string[] = [];
  let hintSeen: ListenHint | undefined;
  const stream: SttStream = {
    write: (pcm, atMs) => log.push(`audio@${atMs}:${pcm.length}`),
    expect: (hint) => log.push(`expect ${JSON.stringify(hint)}`),
    speechStarted: (atMs) => log.push(`started@${atMs}`),
    speechStopped: (atMs, endMs) => log.push(`stopped@${atMs}/${endMs}`),
    finalize: async () => ({ text: 'about eighty lakh', final: true, startMs: 0, endMs: 100 }),
    onResult: () => {},
    close: () => {},
  };
  const stt: AdapterSet['stt'] = {
    open: () => stream,
    transcribe: async (_pcm, o) => { hintSeen = o.hint; return { text: '', final: true, startMs: 0, endMs: 20 }; },
  };
  const server = await startAdapterServer({ stt }, '127.0.0.1:0');
  const remote = createAdapters({ ADAPTER_STT_URL: server.address, ADAPTER_TIMEOUT_MS: 5000 });
  t.teardown(async () => { await remote.close(); await server.close(); });

  const s = remote.stt.open({ callId: 'call_hint', language: 'en-US', sampleRateHz: 8000 });
  const asked: ListenHint = { asking: 'budget', open: ['budget', 'scheduled_slot'], names: ['Meera'] };
  s.expect?.(asked);
  for (const at of [0, 20, 40]) s.write(frame(), at);
  s.speechStarted?.(40);
  for (const at of [60, 80]) s.write(frame(), at);
  s.speechStopped?.(100, 80);
  s.write(frame(), 100);
  t.equal((await s.finalize()).text, 'about eighty lakh');
  s.close();
  t.same(log, [`expect ${JSON.stringify(asked)}`, 'audio@0:480', 'started@40', 'audio@60:320', 'stopped@100/80', 'audio@100:160']);

  await remote.stt.transcribe(frame(), { language: 'en-US', sampleRateHz: 8000, hint: { yesNo: true, open: [] } });
  t.same(hintSeen, { yesNo: true, open: [] });
  await remote.stt.transcribe(frame(), { language: 'en-US', sampleRateHz: 8000 });
  t.equal(hintSeen, undefined, 'no hint sent, none heard');
});

t.test('the offline ears behind the link decode a turn live, against the asked grammar', async (t) => {
  const server = await startAdapterServer({ stt: new OfflineStt() }, '127.0.0.1:0');
  const remote = createAdapters({ ADAPTER_STT_URL: server.address, ADAPTER_TIMEOUT_MS: 60_000 });
  t.teardown(async () => { await remote.close(); await server.close(); });
  const words = await phoneWords('About eighty lakh rupees.');

  const s = remote.stt.open({ callId: 'call_live', language: 'en', sampleRateHz: 8000 });
  s.expect?.({ asking: 'budget', open: ['budget'] });
  const before = earsStats();
  let ms = 0;
  for (let i = 0; i < 25; i++, ms += 20) s.write(frame(), ms);
  s.speechStarted?.(ms);
  for (let i = 0; i + 160 <= words.length; i += 160, ms += 20) s.write(words.subarray(i, i + 160), ms);
  const end = ms;
  s.speechStopped?.(ms + 240, end);
  for (let i = 0; i < 40; i++, ms += 20) s.write(frame(), ms);
  t.equal((await s.finalize()).text, 'about eighty lakh rupees');
  s.close();
  const after = earsStats();
  t.equal(after.live, before.live + 1, 'answered from the live decoding');
  t.ok(after.heldQuietMs - before.heldQuietMs >= 400, 'the quiet after the speech was held back');
});
