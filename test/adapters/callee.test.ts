/**
 * The simulated callee's script, and a whole conversation carried as real audio: agent text -> SimVoice TTS ->
 * mu-law 20 ms frames -> the callee "hears" it with the STT decoder; the callee's reply goes back the same way
 * and the scripted dialog acts on what the STT recognised. No text is passed around the audio path.
 */
import t from 'tap';
import { SimulatedCallee, SIM_NUMBERS, simNumberFor, createSimAdapters, type AdapterSet, type DialogMessage } from '../../src/adapters/index.js';
import { mulawDecode, mulawEncode } from '../../src/audio/index.js';
import { isBackchannel } from '../../src/session/utterance.js';
import { collect, NOW } from './helpers/contract.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';
import { extractBudgetAmount } from '../../src/dialog/extract.js';

t.test('the magic-number table', async (t) => {
  t.same(Object.keys(SIM_NUMBERS).sort(), Array.from({ length: 10 }, (_, i) => `+150055500${String(i + 1).padStart(2, '0')}`));
  t.equal(simNumberFor('+15005550005').scenario, 'hangup_mid_call');
  t.same(simNumberFor('+447700900123'), { outcome: 'answered', scenario: 'cooperative', description: 'cooperative callee' });
});

t.test('persona and replies are deterministic per call id', async (t) => {
  const a = new SimulatedCallee('call_0123', 'cooperative');
  const b = new SimulatedCallee('call_0123', 'cooperative');
  t.same(a.persona, b.persona);
  t.same(a.reply('May I have your name, please?'), b.reply('May I have your name, please?'));
  const personas = new Set(Array.from({ length: 20 }, (_, i) => JSON.stringify(new SimulatedCallee(`call_${i}`, 'cooperative').persona)));
  t.ok(personas.size > 5, 'call ids give different personas');
});

t.test('scenario behaviours', async (t) => {
  const q = 'Hello, this is an AI assistant. May I have your name, please?';
  const hangup = new SimulatedCallee('c1', 'hangup_mid_call');
  t.match(hangup.reply(q), { say: /^My name is /, hangUp: false });
  t.match(hangup.reply('What are you looking for today?'), { say: null, hangUp: true });
  t.ok(hangup.hungUp);
  t.match(new SimulatedCallee('c2', 'asks_for_human').reply(q), { say: 'Can I speak to a real person, please?' });
  t.match(new SimulatedCallee('c3', 'silent').reply(q), { say: null, hangUp: false });
  const vm = new SimulatedCallee('c4', 'voicemail');
  t.match(vm.greeting(), /leave a message/);
  t.match(vm.reply(q), { say: null });
  t.equal(new SimulatedCallee('c5', 'cooperative').greeting(), null);
  t.match(new SimulatedCallee('c6', 'wants_brochure').reply('What are you looking for today?'), { say: /Can you send me the brochure\?$/ });
  t.match(new SimulatedCallee('c7', 'cooperative').reply('Thank you, that is everything. Goodbye.'), { say: 'Bye.', hangUp: true });
  // on hold, the callee waits; a person who picks up right after the hold message (one turn to the ear) is answered
  const held = new SimulatedCallee('c9', 'cooperative');
  t.match(held.reply('Please stay on the line while I connect you with a colleague.'), { say: null });
  t.match(held.reply('Please stay on the line while I connect you with a colleague. Hello, this is Sam. What are you looking for?'), { say: /^I am looking for/ });
});

t.test('barge-in and backchannels while the agent talks', async (t) => {
  const barge = new SimulatedCallee('c8', 'barge_in');
  t.equal(barge.duringAgentSpeech('Hello, this is an automated assistant calling on behalf of our team'), null, 'never during the disclosure');
  barge.reply('Hello, this is an automated assistant calling on behalf of our team.');
  t.equal(barge.duringAgentSpeech('What are'), null, 'waits for a few words');
  t.same(barge.duringAgentSpeech('What are you'), { say: 'Who is this?', kind: 'interruption' });
  t.equal(barge.duringAgentSpeech('What are you looking'), null, 'once per utterance');
  barge.reply('What are you');
  t.equal(barge.duringAgentSpeech('one two three four five six seven'), null, 'interrupts only once per call');
  let backchannels = 0;
  for (let i = 0; i < 20; i++) {
    const c = new SimulatedCallee(`call_bc_${i}`, 'cooperative');
    const r = c.duringAgentSpeech('one two three four five six seven eight nine ten eleven twelve');
    if (r) { backchannels++; t.ok(r.kind === 'backchannel' && isBackchannel(r.say), 'the audio core treats it as a backchannel'); }
  }
  t.ok(backchannels > 0 && backchannels < 20, `${backchannels}/20 calls backchannel`);
});

/** Agent or callee speech as it would cross the phone line: SimVoice PCM -> mu-law frames -> PCM -> STT. */
async function overTheLine(set: AdapterSet, text: string, voice: string, atMs: number): Promise<string> {
  const pcm = await collect(set.tts.synthesize({ text, voice, language: 'en-US', sampleRateHz: 8000 }));
  const stream = set.stt.open({ callId: 'c', language: 'en-US', sampleRateHz: 8000 });
  let at = atMs;
  for (const chunk of pcm) {
    const wire = mulawEncode(chunk);
    for (let i = 0; i < wire.length; i += 160) { stream.write(mulawDecode(wire.subarray(i, i + 160)), at); at += 20; }
  }
  const r = await stream.finalize();
  stream.close();
  return r.text;
}

t.test('a whole call as tone code (SIM_SPEECH=tones): the callee is recognised from what it says', async (t) => {
  const set = createSimAdapters({ speech: 'tones' });
  const callee = new SimulatedCallee('call_audio_loop', 'cooperative');
  const history: DialogMessage[] = [];
  const extracted: Record<string, string | number> = {};
  let callerText = '';
  let ended = '';
  for (let turn = 0; turn < 8 && !ended; turn++) {
    const events = await collect(set.dialog.turn({
      callId: 'call_audio_loop', agent: DEFAULT_AGENT, context: {}, tools: ['calendar_booking', 'crm_sync'], history: [...history],
      callerText, extracted: { ...extracted }, now: NOW, timeZone: 'Europe/London',
    }));
    if (callerText) history.push({ role: 'caller', text: callerText });
    const agentText = events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text).join(' ');
    history.push({ role: 'agent', text: agentText });
    for (const e of events) if (e.type === 'entity') extracted[e.key] = e.value;
    ended = events.find((e) => e.type === 'end_call' || e.type === 'escalate')?.type ?? '';
    const heard = await overTheLine(set, agentText, 'agent', turn * 20_000);
    t.equal(heard, agentText.replace(/\s+/g, ' '), `callee hears agent turn ${turn}`);
    const reply = callee.reply(heard);
    callerText = reply.say ? await overTheLine(set, reply.say, 'caller', turn * 20_000 + 10_000) : '';
    if (reply.say) t.equal(callerText, reply.say, `agent side recognises "${reply.say}"`);
  }
  t.equal(ended, 'end_call');
  t.equal(extracted.customer_name, callee.persona.name);
  t.equal(extracted.budget, extractBudgetAmount(callee.persona.budget), 'the budget said, in its normal form');
  t.equal(extracted.qualification_score, 100);
  t.match(String(extracted.scheduled_slot), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00[+-]\d{2}:\d{2}$/);
});
