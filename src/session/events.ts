/**
 * The live call's vocabulary: what happens to a call (inputs, past tense), what the session decides to do about
 * it (actions, imperative), and the state those decisions rest on. All times are media time (ms from the call's
 * first frame, counted in frames), never wall clock, so a simulated call reaches the same decisions at any speed.
 */

export type Phase =
  /** answered, nothing said yet */
  | 'idle'
  /** the AI disclosure is playing: it cannot be interrupted; caller speech is kept and answered after it */
  | 'disclosure'
  /** the agent is silent, waiting for the caller */
  | 'listening'
  /** the caller's turn ended: transcript, dialog and synthesis are working, nothing audible yet */
  | 'thinking'
  /** the agent's reply is playing */
  | 'speaking'
  /** the caller spoke over the reply: playout paused until the words decide (backchannel resumes, words cut) */
  | 'interrupted'
  /** a transfer to a human is under way */
  | 'transferring'
  /** the call is wrapping up: the last words play, or it holds for an operator after an escalation */
  | 'ending'
  /** the caller waits for an operator in the handoff queue: the agent is quiet, the caller's words are only recorded */
  | 'on_hold'
  /** an operator has the call: the agent is quiet, the caller's words are only recorded (the operator answers) */
  | 'with_operator'
  | 'ended';

/** `farewell`: a fixed closing line (the keypad opt-out's confirmation); the call ends with endReason once it played */
export type ReplyKind = 'disclosure' | 'opening' | 'answer' | 'check_in' | 'voicemail' | 'farewell'
  /** the handoff's fixed words (src/handoffs/hold_script.ts): going on hold, nobody came (a call-back is offered),
   *  the goodbye after the caller's answer, the agent back after an operator */
  | 'hold' | 'callback_offer' | 'callback_confirmed' | 'callback_declined' | 'agent_back'
  /** the operator's message, spoken to the caller (callerText holds it) */
  | 'operator';

export type ReplyEnding = { kind: 'escalate' | 'end_call'; reason: string };

/** When the caller's turn ended, for the reply's latency split. */
export interface TurnTiming { speechEndMs: number; endedAtMs: number }

export type SessionInput =
  | { type: 'CallAnswered' }
  /** one more inbound frame: media time advanced (drives the no-input check-in and the escalation hold) */
  | { type: 'MediaAdvanced'; mediaMs: number }
  | { type: 'SpeechStarted'; atMs: number }
  | { type: 'SpeechStopped'; atMs: number; speechEndMs: number }
  | { type: 'TurnEnded'; atMs: number; speechEndMs: number }
  /** `protectedAudio`: what is playing now is marked uninterruptible */
  | { type: 'BargeInDetected'; atMs: number; protectedAudio: boolean }
  /** the detector found the overlapping speech too short to be an interruption */
  | { type: 'InterruptionRecovered'; atMs: number }
  | { type: 'TranscriptInterim'; text: string }
  /** `unheard`: the caller spoke and the recogniser understood none of it (a grammar recogniser's rejection) */
  | { type: 'TranscriptFinal'; purpose: TranscriptPurpose; text: string; turn?: TurnTiming; unheard?: boolean }
  /** `timedOut`: the recognition missed its deadline (it may pass); any other failure recurs */
  | { type: 'TranscriptFailed'; purpose: TranscriptPurpose; turn?: TurnTiming; error: unknown; timedOut?: boolean }
  /** the reply's first audio is queued for the caller */
  | { type: 'ReplyAudible'; replyId: number }
  /** the reply has nothing more to say (all its audio is queued); `ending` if the dialog ends or escalates */
  | { type: 'ReplyGenerated'; replyId: number; ending?: ReplyEnding }
  /** everything queued has played */
  | { type: 'PlayoutDrained'; replyId: number }
  | { type: 'TransferRequested'; target: string }
  | { type: 'TransferCompleted' }
  | { type: 'TransferFailed'; reason: string }
  | { type: 'HangupRequested'; reason: string }
  /** the carrier ended the stream ('stop': the caller hung up) or the socket closed */
  | { type: 'MediaEnded'; reason: 'stop' | 'closed' }
  /** answering-machine detection: a machine answered; `beepDone` once its greeting is over */
  | { type: 'MachineDetected'; beepDone: boolean }
  /** the caller pressed a key of the phone's keypad (DTMF; src/session/keypad.ts) */
  | { type: 'KeyPressed'; digit: string }
  /** an operator accepted the call's handoff: the agent stops speaking for good (until handed back) */
  | { type: 'OperatorJoined' }
  /** the operator is done: the agent takes the call again, or the call ends (transferred to the operator) */
  | { type: 'OperatorLeft'; then: 'agent' | 'end' }
  /** the operator's message, to be spoken to the caller */
  | { type: 'OperatorSpoke'; text: string }
  /** a transfer to a person with no number to dial: the caller waits on hold in the handoff queue */
  | { type: 'HoldRequested' };

export type TranscriptPurpose = 'turn' | 'barge_in';
export type { BargeInVerdict } from '../audio/index.js';
import type { BargeInVerdict } from '../audio/index.js';
import type { Keypad } from '../calls/types.js';


export type SessionAction =
  /** `unheard`: the caller's turn was spoken and not understood (the dialog asks again) */
  | { type: 'StartReply'; replyId: number; kind: ReplyKind; callerText: string; turn?: TurnTiming; sttFailure?: unknown; unheard?: true }
  /** stop generating, drop unplayed audio (carrier clear) and keep in the history only what the caller heard */
  | { type: 'CutReply'; replyId: number }
  /** the reply played in full: into the history */
  | { type: 'CompleteReply'; replyId: number }
  | { type: 'PausePlayout' }
  | { type: 'ResumePlayout' }
  | { type: 'FinalizeTranscript'; purpose: TranscriptPurpose; turn?: TurnTiming }
  /** tells the audio detector how a pending barge-in ended */
  | { type: 'ResolveBargeIn'; verdict: BargeInVerdict }
  | { type: 'RecordCallerTurn'; text: string }
  | { type: 'RecordBackchannel'; text: string }
  | { type: 'RecordInterruption' }
  | { type: 'DisclosureDelivered' }
  | { type: 'Escalate'; reason: string }
  | { type: 'Transfer'; target: string }
  /** the caller asked (by key, or in words the dialog understood) never to be called again: their number goes on the do-not-disturb list */
  | { type: 'OptOut'; source: 'keypad' | 'spoken' }
  /** nobody accepted the handoff within the hold time: the caller is offered a call-back */
  | { type: 'HoldTimedOut' }
  /** the caller accepted the call-back: schedule it */
  | { type: 'CallbackAccepted'; text: string }
  | { type: 'EndCall'; reason: string };

export interface SessionSettings {
  /** the agent has a disclosure to speak first */
  hasDisclosure: boolean;
  /** caller silence after the agent finished before the agent checks in (media ms) */
  noInputMs: number;
  /** after an escalation, how long the call holds for a transfer before it ends (media ms) */
  escalationHoldMs: number;
  /** what a machine answer gets: a voicemail message, or a hang-up */
  voicemail: 'leave_message' | 'hangup';
  /** what the caller's keys do; a key without an action is input to the dialog */
  keypad?: Keypad | null;
  /**
   * After the agent escalates (a caller asking for a person), how long the caller waits on hold for an operator
   * before being offered a call-back (media ms); 0 or absent: the call ends after escalationHoldMs, as before.
   */
  operatorHoldMs?: number;
}

export interface ReplyState { id: number; kind: ReplyKind; callerText: string; audible: boolean; done: boolean; ending?: ReplyEnding }

export interface SessionState {
  phase: Phase;
  settings: SessionSettings;
  mediaMs: number;
  /** media time of the last caller or agent activity (the no-input check-in counts from here) */
  lastActivityMs: number;
  reply?: ReplyState;
  lastReplyId: number;
  callerInTurn: boolean;
  /** a transcript is being finalised; no check-in meanwhile */
  transcribing: number;
  /** what the caller said that is still to be answered (speech during the disclosure, words that cut a reply) */
  heldText: string;
  disclosureDelivered: boolean;
  /** the call ends when media time reaches this (escalation hold), with endReason */
  endAtMs?: number;
  endReason?: string;
  machine: boolean;
  /** keys pressed as input and not answered yet, and the media time of the last one */
  keys?: { digits: string; atMs: number };
  /** on hold for an operator until media time reaches this (then the call-back offer) */
  holdUntilMs?: number;
  /** the call-back was offered: the caller's next words answer it */
  callbackOffered?: boolean;
  /** an operator has the call (whatever plays now, the agent answers nothing) */
  withOperator?: boolean;
  /** the last turn's recognition missed its deadline and was asked again: a second miss in a row is the fallback */
  sttTimedOut?: boolean;
}
