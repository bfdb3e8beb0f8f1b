/**
 * The adapter contract as test cases, run against any AdapterSet: the in-process simulators and the same
 * simulators behind a real gRPC server (test/adapters/contract_*.test.ts). Same inputs, same expectations.
 */
import type { Test } from 'tap';
import { AdapterError, type AdapterSet, type DialogEvent, type DialogTurnRequest } from '../../../src/adapters/types.js';
import { DEFAULT_AGENT } from '../../../src/repos/agents.js';
import { encodeSimVoice } from '../../../src/simvoice/index.js';
import { mulawDecode, mulawEncode } from '../../../src/audio/index.js';

export const NOW = '2026-11-22T18:00:00Z'; // a Sunday

export function turnRequest(over: Partial<DialogTurnRequest> = {}): DialogTurnRequest {
  return {
    callId: 'call_contract', agent: DEFAULT_AGENT, context: {}, tools: ['calendar_booking', 'crm_sync', 'messaging_brochure'],
    history: [], callerText: '', extracted: {}, now: NOW, timeZone: 'Asia/Kolkata', ...over,
  };
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const placeReq = (to: string) => ({ callId: 'call_1', tenantId: 'ten_dev', to, mediaUrl: 'wss://example.test/v1/media/twilio', parameters: { call_id: 'call_1' } });

export function adapterContract(t: Test, label: string, getSet: () => AdapterSet): void {
  t.test(`${label}: carrier outcomes follow the magic numbers`, async (t) => {
    const { carrier } = getSet();
    for (const [to, outcome] of [['+15005550001', 'no_answer'], ['+15005550002', 'busy'], ['+15005550003', 'failed'],
      ['+15005550004', 'voicemail'], ['+15005550006', 'answered'], ['+14155550123', 'answered']] as const) {
      const r = await carrier.placeCall(placeReq(to));
      t.equal(r.outcome, outcome, to);
      t.match(r.carrierCallId, /^CA[0-9a-f]{32}$/);
    }
  });

  t.test(`${label}: hang-up is idempotent, transfer validates its target`, async (t) => {
    const { carrier } = getSet();
    const r = await carrier.placeCall(placeReq('+14155550123'));
    await carrier.transfer(r.carrierCallId, 'sip:desk@example.com');
    await t.rejects(carrier.transfer(r.carrierCallId, 'not a number'), { code: 'invalid' });
    await carrier.hangup(r.carrierCallId);
    await carrier.hangup(r.carrierCallId);
    await t.rejects(carrier.transfer(r.carrierCallId, '+14155550199'), { code: 'failed' });
    await t.rejects(carrier.placeCall(placeReq('12345')), { code: 'invalid' });
  });

  t.test(`${label}: a transfer says how it was made; warm carries its summary and needs one`, async (t) => {
    const { carrier } = getSet();
    const cold = await carrier.placeCall(placeReq('+14155550124'));
    t.same(await carrier.transfer(cold.carrierCallId, '+14155550199'), { mode: 'cold' }, 'cold by default');
    const warm = await carrier.placeCall(placeReq('+14155550125'));
    await t.rejects(carrier.transfer(warm.carrierCallId, '+14155550199', { mode: 'warm' }), { code: 'invalid' }, 'warm without a summary');
    t.same(await carrier.transfer(warm.carrierCallId, '+14155550199', { mode: 'warm', summary: 'Anna wants a flat.' }), { mode: 'warm' });
    await carrier.hangup(cold.carrierCallId);
    await carrier.hangup(warm.carrierCallId);
  });

  t.test(`${label}: TTS streams SimVoice that STT recognises after mu-law, 20 ms frames and a media offset`, async (t) => {
    const { stt, tts } = getSet();
    const chunks = await collect(tts.synthesize({ text: 'My name is Anna Lee.', voice: 'alloy', language: 'en-US', sampleRateHz: 8000 }));
    t.ok(chunks.length >= 4, 'one chunk per word');
    const pcm = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) { pcm.set(c, at); at += c.length; }
    const stream = stt.open({ callId: 'call_1', language: 'en-US', sampleRateHz: 8000 });
    const partials: string[] = [];
    stream.onResult((r) => { if (!r.final) partials.push(r.text); });
    const wire = mulawDecode(mulawEncode(pcm));
    const startMs = 12_340;
    for (let i = 0; i < wire.length; i += 160) stream.write(wire.slice(i, i + 160), startMs + i / 8);
    const final = await stream.finalize();
    t.equal(final.text, 'My name is Anna Lee.');
    t.equal(final.final, true);
    t.ok(final.startMs >= startMs && final.endMs > final.startMs && final.endMs <= startMs + wire.length / 8, 'media-time span');
    t.ok(partials.length >= 1, 'partials while audio arrives');
    t.equal(partials.at(-1), 'My name is Anna Lee.');
    const next = await stream.finalize();
    t.equal(next.text, '', 'finalize resets the text for the next turn');
    stream.close();
  });

  t.test(`${label}: STT of audio without a SimVoice payload is empty and final`, async (t) => {
    const { stt } = getSet();
    const noise = new Int16Array(16_000);
    let seed = 7;
    for (let i = 0; i < noise.length; i++) { seed = (seed * 1103515245 + 12345) >>> 0; noise[i] = ((seed >>> 16) % 8000) - 4000; }
    // audio that carries no SimVoice goes to the offline recogniser, whose first load (seconds on a busy machine)
    // is not what this checks: a deadline that allows it
    const r = await stt.transcribe(noise, { language: 'en-US', sampleRateHz: 8000, timeoutMs: 60_000 });
    t.same({ text: r.text, final: r.final }, { text: '', final: true });
    const whole = await stt.transcribe(encodeSimVoice('uh huh'), { language: 'en-US', sampleRateHz: 8000 });
    t.equal(whole.text, 'uh huh');
  });

  t.test(`${label}: dialog opens with the disclosure, then walks the qualify script`, async (t) => {
    const { dialog } = getSet();
    const all = await collect(dialog.turn(turnRequest()));
    // a listen hint says what the agent now waits for (the offline recogniser's grammar); it is not speech
    t.match(all.at(-1), { type: 'listen', hint: { asking: 'customer_name' } });
    const open = all.filter((e) => e.type !== 'listen');
    t.same(open.map((e) => e.type), ['text', 'text']);
    t.equal((open[0] as { text: string }).text, DEFAULT_AGENT.disclosure_script);
    const history = [{ role: 'agent' as const, text: open.map((e) => (e as { text: string }).text).join(' ') }];
    const next = (await collect(dialog.turn(turnRequest({ history, callerText: 'My name is Anna Lee.' })))).filter((e) => e.type !== 'listen');
    t.same(next[0], { type: 'entity', key: 'customer_name', value: 'Anna Lee' });
    t.same(next.at(-1), { type: 'text', text: DEFAULT_AGENT.qualify_script[1].question });
  });

  t.test(`${label}: a turn spoken and not understood is asked again, not taken for silence`, async (t) => {
    const { dialog } = getSet();
    const history = [{ role: 'agent' as const, text: `${DEFAULT_AGENT.disclosure_script} ${DEFAULT_AGENT.qualify_script[0].question}` }];
    const text = async (over: Partial<DialogTurnRequest>) => (await collect(dialog.turn(turnRequest({ history, ...over }))))
      .filter((e) => e.type === 'text').map((e) => (e as { text: string }).text).join(' ');
    t.equal(await text({ unheard: true }), `Sorry, I didn't catch that. ${DEFAULT_AGENT.qualify_script[0].question}`);
    t.match(await text({}), /^Are you still there\?/, 'silence');
  });

  t.test(`${label}: dialog entity values keep their type and tool calls their arguments`, async (t) => {
    const { dialog } = getSet();
    const extracted = { customer_name: 'Anna Lee', intent: 'a villa', budget: '50 lakh' };
    const history = [{ role: 'agent' as const, text: 'When would suit you for a site visit?' }];
    const events: DialogEvent[] = await collect(dialog.turn(turnRequest({ history, extracted, callerText: 'Tomorrow at 10 am works for me.' })));
    t.same(events.filter((e) => e.type === 'entity'), [
      { type: 'entity', key: 'scheduled_slot', value: '2026-11-23T10:00:00+05:30' },
      { type: 'entity', key: 'qualification_score', value: 100 },
    ]);
    t.same(events.find((e) => e.type === 'tool_call' && e.tool === 'calendar_booking'),
      { type: 'tool_call', tool: 'calendar_booking', arguments: { start: '2026-11-23T10:00:00+05:30', time_zone: 'Asia/Kolkata', title: 'Site visit', customer_name: 'Anna Lee' } });
    // every field is known: the agent asks whether there is anything else instead of hanging up
    t.notOk(events.some((e) => e.type === 'end_call'), 'the call goes on');
    t.match(events.filter((e) => e.type === 'text').at(-1), { text: /anything else/i });
  });

  t.test(`${label}: a stream's deadline bounds each item, not a consumer that pulls at playback pace`, async (t) => {
    const { tts, dialog } = getSet();
    const words: Int16Array[] = [];
    for await (const c of tts.synthesize({ text: 'one two three four five', voice: 'v', language: 'en-US', sampleRateHz: 8000 }, { timeoutMs: 300 })) {
      words.push(c);
      await new Promise((r) => setTimeout(r, 150)); // "playing" the word; 5 x 150 ms is well past 300 ms in total
    }
    t.equal(words.length, 5, 'all words arrived');
    let events = 0;
    for await (const e of dialog.turn(turnRequest(), { timeoutMs: 300 })) { if (e.type === 'text') events++; await new Promise((r) => setTimeout(r, 200)); }
    t.equal(events, 2);
  });

  t.test(`${label}: an aborted TTS stream stops and reports canceled`, async (t) => {
    const { tts } = getSet();
    const ctl = new AbortController();
    const got: Int16Array[] = [];
    const err = await (async () => {
      try {
        for await (const c of tts.synthesize({ text: 'one two three four five six seven eight nine ten', voice: 'v', language: 'en-US', sampleRateHz: 8000 }, { signal: ctl.signal })) {
          got.push(c);
          if (got.length === 2) ctl.abort();
        }
      } catch (e) { return e; }
      return undefined;
    })();
    t.ok(err instanceof AdapterError && err.code === 'canceled', 'canceled');
    t.ok(got.length < 10, `stopped after ${got.length} of 10 words`);
  });
}
