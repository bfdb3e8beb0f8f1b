/** The streaming reply stage (src/session/reply.ts) on its own: dialog -> sentences -> TTS -> frames, and its abort. */
import t from 'tap';
import { AdapterError, type DialogAdapter, type DialogEvent, type TextToSpeechAdapter } from '../../src/adapters/types.js';
import { FALLBACK_TEXT, heardText, runReply, type ReplyPorts } from '../../src/session/reply.js';

const tick = () => new Promise((r) => setImmediate(r));

function ports(dialog: DialogAdapter, tts: TextToSpeechAdapter, log: string[] = []): ReplyPorts & { frames: number } {
  const p = {
    frames: 0, dialog, tts, voice: 'aria', language: 'en-US', now: () => performance.now(),
    enqueue(frames: Uint8Array[]) { p.frames += frames.length; log.push(`frames ${frames.length}`); },
    entity(k: string, v: string | number) { log.push(`entity ${k}=${v}`); },
    async tool(tool: string) { log.push(`tool ${tool}`); return { type: tool, status: '201_created', result: { id: 7 } }; },
  };
  return p;
}
const streamed = (events: DialogEvent[], log?: string[]): DialogAdapter => ({
  async *turn() { for (const e of events) { await tick(); log?.push(`dialog ${e.type === 'text' ? JSON.stringify(e.text) : e.type}`); yield e; } },
});
/** 20 ms a character, as PCM, logging what it is asked */
const pcmTts = (log?: string[]): TextToSpeechAdapter => ({
  async *synthesize(req) { log?.push(`tts ${JSON.stringify(req.text)}`); await tick(); yield new Int16Array(160 * req.text.length); },
});

t.test('tokens become sentences; the first is synthesised while the model still streams', async (t) => {
  const log: string[] = [];
  const tokens = ['Sure', ', Ravi', '. Your', ' visit', ' is booked', ' for Monday', '. Anything', ' else?'];
  const p = ports(streamed(tokens.map((text) => ({ type: 'text', text })), log), pcmTts(log), log);
  const out = await runReply(p, { dialog: {} as never }, new AbortController().signal);
  t.same(out.spoken.map((s) => s.text), ['Sure, Ravi.', 'Your visit is booked for Monday.', 'Anything else?']);
  t.ok(log.indexOf('tts "Sure, Ravi."') < log.indexOf('dialog " else?"'), 'synthesis started before the model finished');
  t.same(out.spoken.map((s) => [s.startMs, s.endMs]), [[0, 220], [220, 860], [860, 1140]], 'each sentence\'s span of audio');
  t.equal(p.frames, 57);
  t.ok(out.firstTextAt! <= out.firstSentenceAt! && out.firstSentenceAt! <= out.firstAudioAt!);
});

t.test('entities, tools and the ending come through; a model may run tools itself', async (t) => {
  const log: string[] = [];
  const model: DialogAdapter = {
    async *turn(_req, opts) {
      const booked = await opts!.runTool!('calendar_booking', { start: '2026-12-01T15:00:00+05:30' });
      yield { type: 'text', text: `Booked, reference ${String(booked.result?.id)}.` };
      yield { type: 'entity', key: 'scheduled_slot', value: '2026-12-01T15:00:00+05:30' };
      yield { type: 'tool_call', tool: 'crm_sync', arguments: {} };
      yield { type: 'end_call', reason: 'completed' };
    },
  };
  const out = await runReply(ports(model, pcmTts(), log), { dialog: {} as never }, new AbortController().signal);
  t.same(out.spoken.map((s) => s.text), ['Booked, reference 7.']);
  t.same(out.ending, { kind: 'end_call', reason: 'completed' });
  t.same(log.filter((l) => !l.startsWith('frames')), ['tool calendar_booking', 'entity scheduled_slot=2026-12-01T15:00:00+05:30', 'tool crm_sync']);
});

t.test('mu-law from the provider goes to the phone as it comes, cut into 20 ms frames', async (t) => {
  let pcmCalls = 0;
  const tts: TextToSpeechAdapter = {
    async *synthesize() { pcmCalls++; yield new Int16Array(0); },
    async *synthesizeMulaw() { yield new Uint8Array(100).fill(0x10); yield new Uint8Array(250).fill(0x20); },
  };
  const frames: Uint8Array[] = [];
  const p = { ...ports(streamed([{ type: 'text', text: 'Hello there, Ravi.' }]), tts), enqueue: (f: Uint8Array[]) => { frames.push(...f); } };
  await runReply(p, { text: 'Hello there, Ravi.' }, new AbortController().signal);
  t.equal(pcmCalls, 0);
  t.same(frames.map((f) => f.length), [160, 160, 160]);
  t.same([frames[0][0], frames[0][159], frames[2][29], frames[2][30]], [0x10, 0x20, 0x20, 0xff], 'bytes untouched, the tail padded with mu-law silence');
});

t.test('one abort stops the model, the synthesis and the queueing', async (t) => {
  const ac = new AbortController();
  let ttsAborted = false;
  const model: DialogAdapter = {
    async *turn(_r, opts) {
      yield { type: 'text', text: 'First sentence here. ' };
      await new Promise<void>((r) => opts!.signal!.addEventListener('abort', () => r()));
      throw new AdapterError('dialog', 'canceled', 'aborted');
    },
  };
  const tts: TextToSpeechAdapter = {
    async *synthesize(req, opts) {
      yield new Int16Array(160);
      await new Promise<void>((r) => opts!.signal!.addEventListener('abort', () => { ttsAborted = true; r(); }));
      yield new Int16Array(160 * req.text.length);
    },
  };
  const p = ports(model, tts);
  const done = runReply(p, { dialog: {} as never }, ac.signal);
  for (let i = 0; i < 5; i++) await tick();
  ac.abort();
  const out = await done;
  t.ok(out.aborted);
  t.ok(ttsAborted, 'the synthesis saw the abort');
  t.equal(p.frames, 1, 'nothing queued after it');
  t.notOk(out.fallback, 'an abort is not a failure');
});

t.test('a failing synthesis: the fallback is spoken and the call escalates; the unsaid sentence is not kept', async (t) => {
  const tts: TextToSpeechAdapter = { async *synthesize() { throw new AdapterError('tts', 'unavailable', 'down'); } };
  const out = await runReply(ports(streamed([{ type: 'text', text: 'Hello there, Ravi.' }]), tts), { dialog: {} as never }, new AbortController().signal);
  t.same(out.spoken.map((s) => s.text), [FALLBACK_TEXT]);
  t.same(out.ending, { kind: 'escalate', reason: 'adapter_failure:tts:unavailable' });
  t.same(out.fallback, { adapter: 'tts', code: 'unavailable' });
});

t.test('a failing dialog: the fallback is spoken in the call\'s own voice, and that render is kept for a later synthesis failure', async (t) => {
  const log: string[] = [];
  let ttsUp = true;
  const tts: TextToSpeechAdapter = {
    async *synthesize(req) {
      log.push(`tts ${JSON.stringify(req.text)}`);
      if (!ttsUp) throw new AdapterError('tts', 'unavailable', 'down');
      yield new Int16Array(160 * 3);
    },
  };
  const failing: DialogAdapter = { async *turn() { throw new AdapterError('dialog', 'timeout', 'slow'); } };
  const p = ports(failing, tts);
  const out = await runReply(p, { dialog: {} as never }, new AbortController().signal);
  t.same(out.fallback, { adapter: 'dialog', code: 'timeout' });
  t.same(log, [`tts ${JSON.stringify(FALLBACK_TEXT)}`], 'the working synthesis rendered the line');
  t.equal(p.frames, 3, 'its frames, not the in-process render');

  ttsUp = false;
  const q = ports(streamed([{ type: 'text', text: 'Hello.' }]), tts);
  const again = await runReply(q, { dialog: {} as never }, new AbortController().signal);
  t.same(again.fallback, { adapter: 'tts', code: 'unavailable' });
  t.equal(q.frames, 3, 'the kept render plays when the synthesis itself fails');
  t.equal(log.filter((l) => l.includes(FALLBACK_TEXT)).length, 1, 'rendered once');
});

t.test('heard text: whole sentences played, the heard share of the one cut, nothing of silent ones', async (t) => {
  const spoken = [{ text: 'May I have your name?', startMs: 0, endMs: 1000 }, { text: 'And your budget in lakh?', startMs: 1000, endMs: 2000 }];
  t.equal(heardText(spoken, 1000), 'May I have your name?');
  t.equal(heardText(spoken, 1500), 'May I have your name? And your…', 'half of five words');
  t.equal(heardText([{ text: 'never synthesised', startMs: 0, endMs: 0 }], 500), '');
});

t.test('keys the dialog presses go to the line; malformed ones from a remote dialog are dropped', async (t) => {
  const pressed: string[] = [];
  const p = { ...ports(streamed([{ type: 'keys', digits: '1' }, { type: 'keys', digits: '12 OR 1=1' }, { type: 'keys', digits: '*0#' }]), pcmTts()),
    keys: (d: string) => { pressed.push(d); } };
  await runReply(p, { dialog: {} as never }, new AbortController().signal);
  t.same(pressed, ['1', '*0#']);
});
