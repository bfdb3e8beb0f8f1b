/**
 * Adapter contracts between the call pipeline and the outside: carrier, speech-to-text, dialog model and
 * text-to-speech. Each has an in-process implementation (the simulator) and a gRPC client/server pair built
 * from proto/. Adapters only return numbers, text and audio; every decision stays in the pipeline stages.
 * Audio crossing these contracts is 16-bit PCM mono at the stated rate (8000 Hz on the phone path).
 */

export interface AdapterCallOptions {
  /** aborts the request (barge-in, hang-up); the adapter stops emitting and releases resources */
  signal?: AbortSignal;
  /**
   * deadline in ms; exceeding it rejects with AdapterError code 'timeout'. Unary calls (placeCall, hangup,
   * transfer, finalize, transcribe): the whole call. Streams (dialog turn, synthesize): the wait for each next
   * item, so a consumer pulling at playback pace is never cut off but a stalled producer is. 0: none (the caller
   * enforces its own, through `signal`).
   */
  timeoutMs?: number;
}

export class AdapterError extends Error {
  override name = 'AdapterError';
  constructor(
    readonly adapter: 'carrier' | 'stt' | 'dialog' | 'tts' | 'tool',
    readonly code: 'timeout' | 'unavailable' | 'failed' | 'canceled' | 'invalid',
    message: string,
    readonly retryable = code === 'timeout' || code === 'unavailable',
  ) {
    super(message);
  }
}

// ---------- carrier ----------
export interface PlaceCallRequest {
  callId: string;
  tenantId: string;
  /** E.164 */
  to: string;
  from?: string;
  /** wss/ws URL of our media edge the carrier must stream to (Twilio <Connect><Stream url=…>) */
  mediaUrl: string;
  /** custom parameters the carrier hands back in the media `start` message */
  parameters: Record<string, string>;
  /** the simulator's callee behaviour, when a test forces one (real carriers ignore it) */
  scenario?: string;
  /** the lead's name, which the simulator's callee answers with (real carriers ignore it) */
  calleeName?: string;
}
export type CarrierOutcome = 'answered' | 'no_answer' | 'busy' | 'failed' | 'voicemail';
export interface PlaceCallResult {
  carrierCallId: string;
  outcome: CarrierOutcome;
  detail?: string;
  /** the carrier's own word for how it went (status, error code, hang-up cause), kept on the call */
  carrierStatus?: string;
}

/** What a carrier tells about a call it placed, while it rings and after it was answered. */
export type CarrierCallEvent =
  | { type: 'ringing' }
  /** answering-machine detection: a machine answered; `beepDone` once its greeting is over (leave the message now) */
  | { type: 'machine'; beepDone: boolean; carrierStatus: string }
  /** the carrier ended the call (the callee hung up, a network failure); the media stream ends with it */
  | { type: 'ended'; carrierStatus: string };

export interface PlaceCallOptions extends AdapterCallOptions {
  /** told what the carrier reports about this call, from the moment it is placed until it ends */
  onEvent?(event: CarrierCallEvent): void;
}

/**
 * cold: the caller is put straight through to the human. warm: the caller hears hold audio while the human is
 * called and hears `summary` first; the two are connected after it.
 */
export type TransferMode = 'cold' | 'warm';
export const TRANSFER_MODES = ['cold', 'warm'] as const;

export interface TransferOptions extends AdapterCallOptions {
  /** default cold */
  mode?: TransferMode;
  /** warm: what the human hears before the caller is connected (plain text, spoken by the carrier) */
  summary?: string;
}

/** How a transfer was made: a carrier that cannot whisper a summary makes a warm request cold and says so. */
export interface TransferDone { mode: TransferMode }

export interface CarrierAdapter {
  /** Places the call and resolves once it is answered (media will connect to mediaUrl) or has failed to connect. */
  placeCall(req: PlaceCallRequest, opts?: PlaceCallOptions): Promise<PlaceCallResult>;
  hangup(carrierCallId: string, opts?: AdapterCallOptions): Promise<void>;
  /** Bridges the call to a human at `target` (E.164 or SIP URI), cold or warm; nothing returned: it was cold. */
  transfer(carrierCallId: string, target: string, opts?: TransferOptions): Promise<TransferDone | void>;
}

// ---------- speech-to-text ----------
export interface TranscriptResult {
  text: string;
  final: boolean;
  /** media time of the audio the text covers, ms from call start */
  startMs: number;
  endMs: number;
  confidence?: number;
  /** text '' for speech the recogniser heard and understood none of (a grammar recogniser's rejection), not silence */
  unheard?: boolean;
}

/**
 * What the agent waits to hear after its turn, from the dialog (its `listen` event): steers a grammar recogniser,
 * as a VoiceXML form steers its grammars. Open speech-to-text may ignore it; the contract is the same.
 */
export interface ListenHint {
  /** the field whose question the caller just heard (customer_name, intent, budget, scheduled_slot or a custom field) */
  asking?: string;
  /** that question is answered by yes or no */
  yesNo?: boolean;
  /** every field still open: any of them may be answered at any turn (mixed initiative) */
  open: string[];
  /** names the caller may say beyond the recogniser's own list (the context's customer name) */
  names?: string[];
}

export interface SttStream {
  /** Feeds caller audio (PCM16 at the stream's rate) stamped with its media time. */
  write(pcm: Int16Array, atMs: number): void;
  /** What the next caller turn is expected to hold (optional: recognisers that listen openly ignore it). */
  expect?(hint: ListenHint): void;
  /** The session's detector heard the caller start speaking at media time `atMs` (optional: a recogniser that decodes only then). */
  speechStarted?(atMs: number): void;
  /**
   * The detector heard the caller's speech stop (`speechEndMs`, media time): what follows may be the quiet that ends
   * the turn (optional: a recogniser that decodes everything written ignores it; speech resuming calls speechStarted).
   */
  speechStopped?(atMs: number, speechEndMs: number): void;
  /**
   * Forces a final transcript for everything written so far (called at end of turn). A turn may end before the one
   * before it is heard: each call covers what was written since the call before, whatever is still pending.
   */
  finalize(opts?: AdapterCallOptions): Promise<TranscriptResult>;
  /** partial and final results as they come */
  onResult(listener: (r: TranscriptResult) => void): void;
  close(): void;
}

export interface SpeechToTextAdapter {
  open(opts: { callId: string; language: string; sampleRateHz: number }): SttStream;
  /** Whole-utterance recognition (demo audio turns). */
  transcribe(pcm: Int16Array, opts: { language: string; sampleRateHz: number; hint?: ListenHint } & AdapterCallOptions): Promise<TranscriptResult>;
}

// ---------- dialog model ----------
export interface DialogMessage { role: 'agent' | 'caller' | 'operator' | 'system'; text: string }

export interface DialogTurnRequest {
  callId: string;
  /** agent snapshot: scripts and runtime settings */
  agent: {
    role: string;
    language: string;
    disclosure_script: string;
    qualify_script: { field: string; question: string }[];
    /** the qualify script as written, when it is text: instructions a language model reads (the steps derive from it) */
    qualify_text?: string;
    /** what the agent knows to answer callers' questions with: question/answer pairs or plain facts */
    knowledge?: { question?: string; answer: string }[];
  };
  context: Record<string, string>;
  /** tool names enabled for the call (calendar_booking, crm_sync, messaging_brochure) */
  tools: string[];
  history: DialogMessage[];
  /** what the caller just said ('' for the opening turn) */
  callerText: string;
  /** the caller spoke and the speech-to-text understood none of it (callerText ''): not silence; ask again */
  unheard?: boolean;
  /** entities extracted so far */
  extracted: Record<string, string | number>;
  /** ISO 8601 instant that relative dates ("tomorrow at 10 am") resolve against; default: the adapter's clock */
  now?: string;
  /** IANA time zone of the callee for scheduled_slot; default: context.time_zone, else UTC */
  timeZone?: string;
}

export type DialogEvent =
  | { type: 'text'; text: string }
  | { type: 'entity'; key: string; value: string | number }
  | { type: 'tool_call'; tool: string; arguments: Record<string, string> }
  | { type: 'escalate'; reason: string }
  | { type: 'end_call'; reason: string }
  /** what the agent now waits to hear (last event of a turn that asked something) */
  | { type: 'listen'; hint: ListenHint }
  /** the agent presses keys on the line (a phone menu at the other end): 0-9, * and #, at most 32 */
  | { type: 'keys'; digits: string };

/** What running a tool gave: the action recorded on the call, and what the provider answered (for a model). */
export interface ToolOutcome {
  /** e.g. calendar.event.create */
  type: string;
  /** '<http_status>_<text>' */
  status: string;
  /** the provider's answer, trimmed to what a model may use (ids, times), or the error */
  result?: Record<string, unknown>;
}

export interface DialogTurnOptions extends AdapterCallOptions {
  /**
   * Runs an enabled tool now and resolves with its outcome, already recorded on the call. A model that needs the
   * result to go on calls this; an adapter that only announces tools yields `tool_call` events instead.
   */
  runTool?(tool: string, args: Record<string, string>): Promise<ToolOutcome>;
}

export interface DialogAdapter {
  /**
   * Streams the reply: text (fragments of one stream, concatenated as they come; a whole sentence per event is
   * fine too), extracted entities, tool calls, escalation, end.
   */
  turn(req: DialogTurnRequest, opts?: DialogTurnOptions): AsyncIterable<DialogEvent>;
  /**
   * The post-call summary in a few sentences, written by a model (optional: the scripted engine has none, and the
   * summary is then built from the extracted fields). Rejects on failure; the caller falls back to the fields.
   */
  summarize?(req: DialogSummaryRequest, opts?: AdapterCallOptions): Promise<string>;
}

/** What a model needs to summarise a finished call or conversation. */
export interface DialogSummaryRequest {
  agent: { role: string; language: string };
  context: Record<string, string>;
  history: DialogMessage[];
  extracted: Record<string, string | number>;
  /** how it ended (a call's ended_reason, a conversation's ending), null if not known */
  endedReason: string | null;
  /** the summary built from the fields: what the model checks its own against (booked or not, next step) */
  fromFields: string;
}

// ---------- text-to-speech ----------
export interface SynthesisRequest { text: string; voice: string; language: string }

export interface TextToSpeechAdapter {
  /** Streams PCM16 chunks of the spoken text at sampleRateHz (any chunk size). */
  synthesize(req: SynthesisRequest & { sampleRateHz: number }, opts?: AdapterCallOptions): AsyncIterable<Int16Array>;
  /**
   * Streams G.711 mu-law at 8 kHz (any chunk size), for a provider that renders telephone audio itself: it goes
   * to the phone as it comes, with no resampling or transcoding. Optional: without it, calls use synthesize().
   */
  synthesizeMulaw?(req: SynthesisRequest, opts?: AdapterCallOptions): AsyncIterable<Uint8Array>;
  /**
   * Loads what the first synthesis needs (an offline voice compiles seconds on a cold thread). Optional; awaited
   * before a synthesis's deadline starts, so a cold start is never mistaken for a provider that produced nothing.
   */
  warm?(): Promise<void>;
}

export interface AdapterSet {
  carrier: CarrierAdapter;
  stt: SpeechToTextAdapter;
  dialog: DialogAdapter;
  tts: TextToSpeechAdapter;
}
