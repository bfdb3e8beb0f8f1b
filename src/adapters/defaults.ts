/**
 * Deadlines for every adapter call, whichever implementation sits behind the interface: a call without its own
 * timeoutMs gets the configured default (ADAPTER_TIMEOUT_MS), and the deadline and abort are enforced here too,
 * so even an implementation that ignores its options cannot hold the pipeline past them. placeCall waits for
 * an answer, so its default is a ring timeout (60 s) instead.
 */
import { streamWithDeadline, withDeadline } from './deadline.js';
import type { AdapterCallOptions, AdapterSet, CarrierAdapter, DialogAdapter, SpeechToTextAdapter, TextToSpeechAdapter } from './types.js';

export const PLACE_CALL_TIMEOUT_MS = 60_000;

const withTimeout = (opts: AdapterCallOptions | undefined, ms: number): AdapterCallOptions => ({ ...opts, timeoutMs: opts?.timeoutMs ?? ms });

export function withDefaultTimeouts(set: AdapterSet, ms: number): AdapterSet {
  const { carrier: c, stt: s, dialog: d, tts: t } = set;
  const carrier: CarrierAdapter = {
    placeCall: (req, o) => {
      const opts = withTimeout(o, Math.max(ms, PLACE_CALL_TIMEOUT_MS));
      // onEvent passes through: a live carrier reports ringing, machines and the end while the call runs
      return withDeadline('carrier', opts, (signal) => c.placeCall(req, { signal, timeoutMs: opts.timeoutMs, ...(o?.onEvent ? { onEvent: o.onEvent } : {}) }));
    },
    hangup: (id, o) => { const opts = withTimeout(o, ms); return withDeadline('carrier', opts, (signal) => c.hangup(id, { signal, timeoutMs: opts.timeoutMs })); },
    transfer: (id, target, o) => {
      const opts = withTimeout(o, ms);
      // mode and summary pass through: a warm transfer says the summary to the human first
      return withDeadline('carrier', opts, (signal) => c.transfer(id, target, { signal, timeoutMs: opts.timeoutMs,
        ...(o?.mode ? { mode: o.mode } : {}), ...(o?.summary ? { summary: o.summary } : {}) }));
    },
  };
  const stt: SpeechToTextAdapter = {
    open(o) {
      const stream = s.open(o);
      return {
        write: (pcm, atMs) => stream.write(pcm, atMs),
        expect: (hint) => stream.expect?.(hint),
        speechStarted: (atMs) => stream.speechStarted?.(atMs),
        speechStopped: (atMs, speechEndMs) => stream.speechStopped?.(atMs, speechEndMs),
        finalize: (fo) => { const opts = withTimeout(fo, ms); return withDeadline('stt', opts, (signal) => stream.finalize({ signal, timeoutMs: opts.timeoutMs })); },
        onResult: (l) => stream.onResult(l),
        close: () => stream.close(),
      };
    },
    transcribe: (pcm, o) => {
      const opts = withTimeout(o, ms);
      return withDeadline('stt', opts, (signal) => s.transcribe(pcm, { ...o, signal, timeoutMs: opts.timeoutMs }));
    },
  };
  const dialog: DialogAdapter = {
    turn: (req, o) => {
      const opts = withTimeout(o, ms);
      // runTool passes through: a model that needs a tool's result runs it within the turn
      return streamWithDeadline('dialog', opts, (signal) => d.turn(req, { signal, timeoutMs: opts.timeoutMs, ...(o?.runTool ? { runTool: o.runTool } : {}) }));
    },
    // kept when the model has it: the post-call summary is then the model's (whole call under one deadline)
    ...(d?.summarize ? {
      summarize: (req, o) => { const opts = withTimeout(o, ms); return withDeadline('dialog', opts, (signal) => d.summarize!(req, { signal, timeoutMs: opts.timeoutMs })); },
    } satisfies Pick<DialogAdapter, 'summarize'> : {}),
  };
  const tts: TextToSpeechAdapter = {
    synthesize: (req, o) => {
      const opts = withTimeout(o, ms);
      return warmFirst(t, () => streamWithDeadline('tts', opts, (signal) => t.synthesize(req, { signal, timeoutMs: opts.timeoutMs })));
    },
    // kept when the provider has it: telephone audio it renders itself goes to the phone untranscoded
    ...(t?.synthesizeMulaw ? {
      synthesizeMulaw: (req, o) => {
        const opts = withTimeout(o, ms);
        return warmFirst(t, () => streamWithDeadline('tts', opts, (signal) => t.synthesizeMulaw!(req, { signal, timeoutMs: opts.timeoutMs })));
      },
    } satisfies Pick<TextToSpeechAdapter, 'synthesizeMulaw'> : {}),
    ...(t?.warm ? { warm: () => t.warm!() } : {}),
  };
  return { carrier, stt, dialog, tts };
}

/** The voice's warm-up first (a failure shows in the synthesis itself), then the stream under its deadline. */
async function* warmFirst<T>(t: TextToSpeechAdapter, stream: () => AsyncIterable<T>): AsyncGenerator<T> {
  await t.warm?.().catch(() => {});
  yield* stream();
}
