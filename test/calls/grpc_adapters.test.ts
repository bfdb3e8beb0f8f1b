/**
 * The call pipeline with its adapters behind gRPC: a service configured with ADAPTER_*_URL pointing at an adapter
 * server (the simulators served over gRPC in-process on 127.0.0.1:0) completes a simulated call end to end with
 * its turns measured; an unreachable adapter URL gives the caller a spoken answer within ADAPTER_TIMEOUT_MS
 * instead of silence (STT, TTS: the spoken fallback and an escalation; dialog: the scripted engine answers).
 */
import t from 'tap';
import { createServer } from 'node:net';
import { createSimAdapters, simCallees, startAdapterServer, type AdapterSet } from '../../src/adapters/index.js';
import { FALLBACK_TEXT } from '../../src/session/reply.js';
import { createLocalTools } from '../../src/tools/index.js';
import { API_KEY, api, startTestServer } from '../helpers/server.js';

// the simulated carrier behind gRPC has its callees dial the service's media socket, as a carrier would
const callees = simCallees({ timeScale: 10, thread: false });
const sim = createSimAdapters({ speech: 'tones', simCarrier: { ringMs: 0, callees, timeScale: 10 } });
const served = { placeCall: 0, dialogTurns: 0, ttsStreams: 0, sttStreams: 0 };
const counted: AdapterSet = {
  carrier: { placeCall: (r, o) => { served.placeCall++; return sim.carrier.placeCall(r, o); }, hangup: (id, o) => sim.carrier.hangup(id, o),
    transfer: (id, to, o) => sim.carrier.transfer(id, to, o) },
  stt: { open: (o) => { served.sttStreams++; return sim.stt.open(o); }, transcribe: (p, o) => sim.stt.transcribe(p, o) },
  dialog: { turn: (r, o) => { served.dialogTurns++; return sim.dialog.turn(r, o); } },
  tts: { synthesize: (r, o) => { served.ttsStreams++; return sim.tts.synthesize(r, o); } },
};
const adapterServer = await startAdapterServer({ ...counted, tools: createLocalTools() }, '127.0.0.1:0');
t.teardown(() => adapterServer.close());

/** host:port where nothing listens */
async function deadAddress(): Promise<string> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => resolve(`127.0.0.1:${port}`)); });
  });
}

async function runCall(env: Record<string, string>, body: Record<string, unknown> = {}) {
  const srv = await startTestServer({ env: { SIM_TIME_SCALE: '10', ...env } });
  try {
    const auth = { headers: { 'x-api-key': API_KEY } };
    const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+14155550123', agent_id: 'default', ...body } });
    if (d.status !== 201) throw new Error(`dispatch ${d.status} ${JSON.stringify(d.body)}`);
    const until = Date.now() + 90_000;
    let call;
    for (;;) {
      call = (await api(srv.baseUrl, 'GET', `/calls/${d.body.id}`, auth)).body;
      if (['completed', 'no_answer', 'busy', 'failed', 'canceled'].includes(call.status)) break;
      if (Date.now() > until) throw new Error(`call still ${call.status} (hanging?)`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const evs = (await srv.services.db.query<{ type: string; payload: Record<string, unknown> }>(
      'SELECT type, payload FROM call_events WHERE call_id = $1 ORDER BY seq', [d.body.id])).rows
      .map((x) => ({ type: x.type, ...x.payload }) as { type: string; speaker?: string; text?: string; reason?: string });
    return { call, evs, modes: srv.services.adapters.modes };
  } finally {
    await srv.close();
  }
}

t.test('every adapter over gRPC: a simulated call completes end to end with measured turns', async (t) => {
  const before = { ...served };
  const a = adapterServer.address;
  const { call, modes } = await runCall({ ADAPTER_CARRIER_URL: a, ADAPTER_STT_URL: a, ADAPTER_DIALOG_URL: a, ADAPTER_TTS_URL: a, ADAPTER_TOOLS_URL: a },
    { tools: ['calendar_booking', 'crm_sync'] });
  t.same(modes, { carrier: 'grpc', stt: 'grpc', dialog: 'grpc', tts: 'grpc' });
  t.equal(call.status, 'completed');
  t.equal(call.ended_reason, 'completed');
  t.ok(call.metrics.turn_count >= 3, `turns measured (${call.metrics.turn_count})`);
  for (const turn of call.metrics.turns) {
    t.ok(turn.total_ms >= turn.endpointing_ms && turn.stt_ms >= 0 && turn.dialog_ms >= 0 && turn.tts_ms >= 0, `turn breakdown ${JSON.stringify(turn)}`);
  }
  t.equal(call.metrics.fallbacks, 0, 'no fallback needed');
  t.ok(call.extracted_data.customer_name, 'name extracted through the remote dialog');
  t.ok(call.actions_triggered.some((x: { type: string }) => x.type === 'calendar.event.create'), 'tool run through the remote tools service');
  t.equal(served.placeCall - before.placeCall, 1, 'the call was placed through the gRPC carrier');
  t.ok(served.sttStreams > before.sttStreams, 'speech-to-text streamed over gRPC');
  t.ok(served.dialogTurns - before.dialogTurns >= call.metrics.turn_count, 'every dialog turn went over gRPC');
  t.ok(served.ttsStreams - before.ttsStreams >= call.metrics.turn_count, 'speech synthesised over gRPC');
});

const TIMEOUT_MS = 1000;

t.test('unreachable STT adapter: spoken fallback instead of silence, then escalation', async (t) => {
  const { call, evs } = await runCall({ ADAPTER_STT_URL: await deadAddress(), ADAPTER_TIMEOUT_MS: String(TIMEOUT_MS) });
  t.equal(call.status, 'completed');
  t.equal(call.ended_reason, 'adapter_failure');
  t.equal(call.metrics.fallbacks, 1);
  t.equal(call.human_escalation, true);
  const turn = call.metrics.turns[0];
  t.ok(turn, 'the failed turn is measured');
  t.ok(evs.some((e) => e.type === 'transcript' && e.speaker === 'agent' && e.text?.includes(FALLBACK_TEXT)), 'fallback transcript published');
  const esc = evs.findIndex((e) => e.type === 'escalation' && /^adapter_failure:stt:(unavailable|timeout)$/.test(e.reason ?? ''));
  t.ok(esc >= 0, `escalation ${JSON.stringify(evs.filter((e) => e.type === 'escalation'))}`);
  // order, not speed: the caller's turn got the fallback (no invented caller text), then the escalation
  const fallbackAt = evs.findIndex((e) => e.type === 'transcript' && e.speaker === 'agent' && e.text?.includes(FALLBACK_TEXT));
  t.ok(fallbackAt >= 0 && fallbackAt < esc, 'the fallback was spoken before the escalation');
  t.notOk(evs.some((e) => e.type === 'transcript' && e.speaker === 'caller'), 'no caller text was invented');
  // a deadline, if that is what failed, fired at ADAPTER_TIMEOUT_MS (not before)
  if (evs[esc]?.reason?.endsWith(':timeout')) t.ok(turn.stt_ms >= TIMEOUT_MS * 0.9, `stt waited for its deadline (${turn.stt_ms} ms)`);
});

t.test('unreachable TTS adapter: the fallback is rendered in-process and spoken, then escalation', async (t) => {
  const { call, evs } = await runCall({ ADAPTER_TTS_URL: await deadAddress(), ADAPTER_TIMEOUT_MS: String(TIMEOUT_MS) });
  t.equal(call.status, 'completed');
  t.equal(call.ended_reason, 'adapter_failure');
  t.equal(call.metrics.fallbacks, 1);
  t.ok(call.metrics.frames_out > 0, `fallback audio sent (${call.metrics.frames_out} frames)`);
  t.ok(evs.some((e) => e.type === 'transcript' && e.speaker === 'agent' && e.text === FALLBACK_TEXT), 'fallback transcript published');
  t.ok(evs.some((e) => e.type === 'escalation' && /^adapter_failure:tts:(unavailable|timeout)$/.test(e.reason ?? '')));
});

t.test('unreachable dialog model: the scripted engine answers each turn and the call completes', async (t) => {
  const { call, evs } = await runCall({ ADAPTER_DIALOG_URL: await deadAddress(), ADAPTER_TIMEOUT_MS: String(TIMEOUT_MS) });
  t.equal(call.status, 'completed');
  t.equal(call.ended_reason, 'completed');
  t.ok(call.metrics.turn_count >= 3, `turns (${call.metrics.turn_count})`);
  t.equal(call.metrics.fallbacks, 0, 'no spoken apology: the scripted engine answered');
  // order, not speed: every caller line got an agent answer before the caller spoke again
  const lines = evs.filter((e) => e.type === 'transcript').map((e) => e.speaker);
  const unanswered = lines.flatMap((s, i) => (s === 'caller' && lines[i + 1] !== 'agent' ? [i] : []));
  t.ok(lines.includes('caller') && unanswered.length === 0, `each caller turn answered: ${JSON.stringify(lines)}`);
  t.ok(call.extracted_data.customer_name, 'the scripted engine extracted the name');
});
