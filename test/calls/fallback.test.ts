/**
 * Adapter failure and timeout during a simulated call over the real media WebSocket: the caller hears the spoken
 * fallback (agent transcript published, its audio sent and in the recording), metrics.fallbacks counts it, and
 * the call escalates and ends with ended_reason 'adapter_failure' instead of hanging. Adapters are swapped with
 * callEngine.overrideAdapters (wrapped with the ADAPTER_TIMEOUT_MS deadlines like the configured ones).
 */
import t, { type Test } from 'tap';
import { AdapterError, createSimAdapters, type AdapterSet, type DialogAdapter, type SttStream, type TextToSpeechAdapter } from '../../src/adapters/index.js';
import { FALLBACK_TEXT } from '../../src/session/reply.js';
import { decodeSimVoice } from '../../src/simvoice/index.js';
import { mulawDecode } from '../../src/audio/index.js';
import { offlineMulawFrames } from '../../src/speech/voice/phone_frames.js';
import { API_KEY, api, startTestServer, waitForCallEnd } from '../helpers/server.js';

const TIMEOUT_MS = 400;
// tone code (SIM_SPEECH=tones): failures are under test, with 400 ms deadlines no recogniser on a busy machine meets,
// and the fallback line is read back from the recording exactly; its last resort in the offline voice: fallback_voice.test.ts
const srv = await startTestServer({ env: { SIM_TIME_SCALE: '10', ADAPTER_TIMEOUT_MS: String(TIMEOUT_MS), SIM_SPEECH: 'tones' } });
t.teardown(() => srv.close());
const auth = { headers: { 'x-api-key': API_KEY } };
const sim = createSimAdapters({ speech: 'tones' });

const waitEnded = (id: string) => waitForCallEnd(srv.baseUrl, id, auth.headers);

/** The stored live items of a call (what listeners got). */
async function items(callId: string) {
  const r = await srv.services.db.query<{ type: string; payload: Record<string, unknown> }>(
    'SELECT type, payload FROM call_events WHERE call_id = $1 ORDER BY seq', [callId]);
  return r.rows.map((x) => ({ type: x.type, ...x.payload }) as { type: string; speaker?: string; text?: string; reason?: string });
}

/** The agent channel (2nd) of the call's two-channel PCM16 recording. */
async function agentChannel(callId: string): Promise<Int16Array> {
  const wav = await srv.services.callEngine.recordingFor(callId);
  if (!wav) throw new Error('no recording');
  const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
  let off = 12;
  while (off + 8 <= wav.length) {
    const id = String.fromCharCode(wav[off], wav[off + 1], wav[off + 2], wav[off + 3]);
    const size = view.getUint32(off + 4, true);
    if (id === 'data') {
      const samples = Math.floor(size / 4);
      const out = new Int16Array(samples);
      for (let i = 0; i < samples; i++) out[i] = view.getInt16(off + 8 + i * 4 + 2, true);
      return out;
    }
    off += 8 + size + (size & 1);
  }
  throw new Error('no data chunk');
}

/** Whether the agent channel holds the fallback line's last resort (the offline voice's render), frame for frame. */
async function holdsLastResort(agent: Int16Array): Promise<boolean> {
  const needle = (await offlineMulawFrames(FALLBACK_TEXT, 'kal16')).slice(0, 25).map((f) => mulawDecode(f));
  for (let slot = 0; (slot + needle.length) * 160 <= agent.length; slot++) {
    if (needle.every((f, k) => f.every((v, i) => agent[(slot + k) * 160 + i] === v))) return true;
  }
  return false;
}

/** Runs one cooperative call with some adapters replaced; returns the ended call, its live items and the agent audio. */
async function callWith(t: Test, overrides: Partial<AdapterSet>) {
  const undo = srv.services.callEngine.overrideAdapters(overrides);
  t.teardown(undo);
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+14155550123', agent_id: 'default' } });
  t.equal(d.status, 201, 'dispatched');
  const call = await waitEnded(d.body.id);
  const evs = await items(d.body.id);
  const agent = await agentChannel(d.body.id);
  const heard = decodeSimVoice(agent);
  return { call, evs, heard, lastResort: await holdsLastResort(agent) };
}

/** What every failure must look like to the caller and in the record. */
function assertSpokenFallback(t: Test, r: Awaited<ReturnType<typeof callWith>>, reason: string, fallbacks: number | 'some') {
  const { call, evs, heard, lastResort } = r;
  t.equal(call.status, 'completed');
  t.equal(call.ended_reason, 'adapter_failure', 'a clear ended_reason, not a hang or a caller hang-up');
  if (fallbacks === 'some') t.ok(call.metrics.fallbacks >= 1, `metrics.fallbacks counts each fallback (${JSON.stringify(call.metrics)})`);
  else t.equal(call.metrics.fallbacks, fallbacks, `metrics.fallbacks counts the fallback (${JSON.stringify(call.metrics)})`);
  t.equal(call.human_escalation, true, 'escalated to a human');
  const agentLines = evs.filter((e) => e.type === 'transcript' && e.speaker === 'agent').map((e) => e.text ?? '');
  t.ok(agentLines.some((x) => x.includes(FALLBACK_TEXT)), `agent transcript of the fallback published: ${JSON.stringify(agentLines)}`);
  t.ok(evs.some((e) => e.type === 'escalation' && e.reason === reason), `escalation ${reason}: ${JSON.stringify(evs.filter((e) => e.type === 'escalation'))}`);
  t.ok(call.metrics.frames_out > 0, `agent frames sent (${call.metrics.frames_out})`);
  // the audio really went out: the recording's agent channel (what was sent and played) carries the fallback words
  // (in the voice's own render, or, when the voice itself failed, the offline voice's: its last resort)
  t.ok(/having trouble/.test(heard) || lastResort, `fallback audible in the agent channel: "${heard.slice(-120)}"`);
}

/** The fallback line as published: whole, or cut by the caller ("Sorry, I'm having…"). */
const isFallbackLine = (text: string) => text.includes(FALLBACK_TEXT) || (text.endsWith('…') && FALLBACK_TEXT.startsWith(text.slice(0, -1)));

t.test('dialog model throws on the caller\'s turn: spoken fallback, counted, escalated', async (t) => {
  const dialog: DialogAdapter = {
    async *turn(req, opts) {
      if (req.callerText) throw new Error('model exploded');
      yield* sim.dialog.turn(req, opts); // the opening (disclosure) works
    },
  };
  const r = await callWith(t, { dialog });
  assertSpokenFallback(t, r, 'adapter_failure:dialog:failed', 'some');
  t.ok(r.call.metrics.turn_count >= 1, 'the failed turn is measured');
  // order, not speed: from the caller's first turn on, the agent says the fallback and nothing else
  const lines = r.evs.filter((e) => e.type === 'transcript');
  const firstCaller = lines.findIndex((e) => e.speaker === 'caller');
  const answers = lines.slice(firstCaller + 1).filter((e) => e.speaker === 'agent').map((e) => e.text ?? '');
  t.ok(firstCaller >= 0 && answers.length > 0 && answers.every(isFallbackLine), `the failed turn is answered by the fallback: ${JSON.stringify(lines)}`);
});

/** The default agent's opening: its disclosure, then the first question. */
const isOpening = (text: string) => /automated assistant|talking with an AI|May I have your name/.test(text);

t.test('TTS fails mid-reply: the caller hears the fallback after the partial sentence', async (t) => {
  const tts: TextToSpeechAdapter = {
    async *synthesize(req, opts) {
      let chunks = 0;
      // the disclosure plays; everything after it breaks after its first word (a provider gone mid-call)
      for await (const c of sim.tts.synthesize(req, opts)) {
        if (!/automated assistant|talking with an AI/.test(req.text) && ++chunks > 1) throw new AdapterError('tts', 'unavailable', 'tts provider went away');
        yield c;
      }
    },
  };
  const r = await callWith(t, { tts });
  // a fallback the caller talks over is cut (and its escalation with it); the next reply fails again
  assertSpokenFallback(t, r, 'adapter_failure:tts:unavailable', 'some');
});

t.test('TTS stalls: the per-item deadline turns it into the fallback', async (t) => {
  const tts: TextToSpeechAdapter = {
    async *synthesize(req, opts) {
      if (!isOpening(req.text)) await new Promise(() => {}); // answers the opening, then never again
      yield* sim.tts.synthesize(req, opts);
    },
  };
  const r = await callWith(t, { tts });
  assertSpokenFallback(t, r, 'adapter_failure:tts:timeout', 'some');
  t.ok(r.call.metrics.turn_count >= 1, 'the failed turn is measured');
});

t.test('a turn heard and not understood is asked again at once; no fallback, the call goes on', async (t) => {
  let rejected = 0;
  const stt: AdapterSet['stt'] = {
    open(o) {
      const inner = sim.stt.open(o);
      const s: SttStream = {
        write: (pcm, at) => inner.write(pcm, at),
        // the caller's first answer (its name) is not understood (a grammar recogniser's rejection); a backchannel
        // over the opening, when the callee says one, is heard
        finalize: async (fo) => { const r = await inner.finalize(fo); return /name is/i.test(r.text) && rejected++ === 0 ? { ...r, text: '', unheard: true } : r; },
        onResult: (l) => inner.onResult(l),
        close: () => inner.close(),
      };
      return s;
    },
    transcribe: (pcm, o) => sim.stt.transcribe(pcm, o),
  };
  const r = await callWith(t, { stt });
  t.equal(r.call.status, 'completed');
  t.equal(r.call.ended_reason, 'completed', `the call went on to its end (${r.call.ended_reason})`);
  t.equal(r.call.metrics.fallbacks, 0);
  t.equal(r.call.human_escalation, false);
  const agent = r.evs.filter((e) => e.type === 'transcript' && e.speaker === 'agent').map((e) => e.text ?? '');
  const again = agent.findIndex((x) => x.startsWith("Sorry, I didn't catch that."));
  t.ok(again > 0, `asked again: ${JSON.stringify(agent)}`);
  t.notOk(agent.slice(0, again).some((x) => x.includes('still there')), 'at once: not after the silence check-in');
  t.ok(r.call.extracted_data.customer_name, 'the answer said again was taken');
});

t.test('STT finalize times out: spoken fallback after ADAPTER_TIMEOUT_MS, reason keeps "timeout"', async (t) => {
  const stt: AdapterSet['stt'] = {
    open(o) {
      const inner = sim.stt.open(o);
      const s: SttStream = {
        write: (pcm, at) => inner.write(pcm, at),
        finalize: () => new Promise(() => {}), // a recogniser that never answers
        onResult: (l) => inner.onResult(l),
        close: () => inner.close(),
      };
      return s;
    },
    transcribe: (pcm, o) => sim.stt.transcribe(pcm, o),
  };
  const r = await callWith(t, { stt });
  // every caller turn fails here, a backchannel over the opening included, and a fallback the caller talks over is
  // cut (its escalation with it), so more than one fallback may be spoken before one plays out and escalates
  assertSpokenFallback(t, r, 'adapter_failure:stt:timeout', 'some');
  const agent = r.evs.filter((e) => e.type === 'transcript' && e.speaker === 'agent').map((e) => e.text ?? '');
  const askedAgain = agent.findIndex((x) => x.startsWith("Sorry, I didn't catch that."));
  t.ok(askedAgain >= 0 && askedAgain < agent.findIndex((x) => x.includes(FALLBACK_TEXT)),
    `the first miss is asked again, a second in a row falls back (${JSON.stringify(agent)})`);
  const turn = r.call.metrics.turns[0];
  t.ok(turn, 'the failed turn is measured');
  // lower bounds only: the deadline fired (not an early error), and the fallback audio followed it
  t.ok(turn.stt_ms >= TIMEOUT_MS * 0.9, `stt waited for its deadline (${turn.stt_ms} ms)`);
  t.ok(turn.total_ms - turn.endpointing_ms >= TIMEOUT_MS * 0.9, `fallback audio after the deadline (${turn.total_ms - turn.endpointing_ms} ms)`);
  t.notOk(r.evs.some((e) => e.type === 'transcript' && e.speaker === 'caller'), 'no caller text was invented');
});
