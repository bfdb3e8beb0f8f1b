/**
 * The live call as a state machine: every transition is decided here, in one switch over the inputs, from the
 * state alone. `step` MUTATES the state it is given and returns the actions to perform, in order; it performs
 * none itself (src/session/shell.ts does), so a call can be replayed and tested input by input with no I/O.
 */
import type { ReplyKind, SessionAction, SessionInput, SessionSettings, SessionState, TurnTiming } from './events.js';
import { classifyUtterance, decidesBargeIn } from './utterance.js';
import { keysDue, pressKey, type KeyDecision } from './keypad.js';
import { acceptsCallback } from './callback_answer.js';
import { endedReasonOf } from '../calls/ended_reasons.js';

export function createSessionState(settings: SessionSettings): SessionState {
  return {
    phase: 'idle', settings: { ...settings }, mediaMs: 0, lastActivityMs: 0, lastReplyId: 0, callerInTurn: false,
    transcribing: 0, heldText: '', disclosureDelivered: false, machine: false,
  };
}

/** how long a machine's greeting may last before the call gives up on leaving a message (media ms) */
export const VOICEMAIL_BEEP_WAIT_MS = 30_000;

const join = (a: string, b: string) => `${a} ${b}`.trim();
const over = (s: SessionState) => s.phase === 'ended' || s.phase === 'transferring';
/** waiting for an operator, or with one: the agent does not answer; the caller's words are recorded for the operator */
const humanSide = (s: SessionState) => s.holdUntilMs !== undefined || s.phase === 'on_hold' || !!s.withOperator;
/** the end reason once an escalation went unanswered: also when the caller hangs up on the goodbye */
const UNANSWERED = 'escalation_unanswered';

export function step(s: SessionState, input: SessionInput): SessionAction[] {
  const out: SessionAction[] = [];
  if (s.phase === 'ended') return out;
  switch (input.type) {
    case 'CallAnswered':
      if (s.phase !== 'idle') break;
      if (s.settings.hasDisclosure) startReply(s, out, 'disclosure', '');
      else startReply(s, out, 'opening', '');
      break;

    case 'MediaAdvanced': {
      s.mediaMs = input.mediaMs;
      if (s.endAtMs !== undefined && s.mediaMs >= s.endAtMs) { end(s, out, s.endReason ?? 'completed'); break; }
      if (s.phase === 'on_hold' && s.holdUntilMs !== undefined && s.mediaMs >= s.holdUntilMs) {
        // nobody took the call: apologise and offer a call-back; the caller's answer decides the goodbye
        s.holdUntilMs = undefined;
        s.endReason = UNANSWERED;
        out.push({ type: 'HoldTimedOut' });
        s.callbackOffered = true;
        startReply(s, out, 'callback_offer', '');
        break;
      }
      if (s.callbackOffered && s.phase === 'listening' && !s.callerInTurn && !s.transcribing
          && s.mediaMs - s.lastActivityMs >= s.settings.noInputMs) {
        s.callbackOffered = false; // no answer is no
        startReply(s, out, 'callback_declined', '');
        break;
      }
      const keys = keysDue(s);
      if (keys) { onKeys(s, out, keys); break; }
      if (s.phase === 'listening' && !s.callerInTurn && !s.transcribing && !s.heldText
          && s.mediaMs - s.lastActivityMs >= s.settings.noInputMs) {
        startReply(s, out, 'check_in', ''); // "Are you still there?"
      }
      break;
    }

    case 'KeyPressed':
      if (over(s) || s.phase === 'ending' || humanSide(s)) break;
      s.lastActivityMs = s.mediaMs;
      onKeys(s, out, pressKey(s, input.digit));
      break;

    case 'SpeechStarted':
      s.callerInTurn = true;
      s.lastActivityMs = s.mediaMs;
      break;

    case 'SpeechStopped':
      // the words behind a pending barge-in decide it
      if (s.phase === 'interrupted') transcribe(s, out, 'barge_in');
      break;

    case 'TurnEnded':
      s.callerInTurn = false;
      s.lastActivityMs = s.mediaMs;
      if (over(s) || s.phase === 'ending') break;
      transcribe(s, out, 'turn', { speechEndMs: input.speechEndMs, endedAtMs: input.atMs });
      break;

    case 'BargeInDetected':
      if (s.phase === 'speaking' && !input.protectedAudio) {
        s.phase = 'interrupted';
        out.push({ type: 'PausePlayout' });
      } else {
        // the disclosure (or a protected segment) keeps playing; the speech is a turn, answered after it
        out.push({ type: 'ResolveBargeIn', verdict: 'words' });
      }
      break;

    case 'InterruptionRecovered':
      if (s.phase === 'interrupted') resume(s, out, '');
      break;

    case 'TranscriptInterim':
      if (s.phase === 'interrupted' && decidesBargeIn(input.text)) {
        out.push({ type: 'ResolveBargeIn', verdict: 'words' });
        confirmBargeIn(s, out, '');
      }
      break;

    case 'TranscriptFinal':
      s.transcribing = Math.max(0, s.transcribing - 1);
      if (input.purpose === 'barge_in') { onBargeInWords(s, out, input.text); break; }
      s.sttTimedOut = false;
      onTurnWords(s, out, input.text, input.turn, input.unheard === true);
      break;

    case 'TranscriptFailed': {
      s.transcribing = Math.max(0, s.transcribing - 1);
      if (input.purpose === 'barge_in') { if (s.phase === 'interrupted') resume(s, out, ''); break; }
      if (!over(s) && s.phase !== 'ending' && s.phase !== 'disclosure' && !humanSide(s) && !s.callbackOffered) {
        cutCurrent(s, out);
        // a recognition past its deadline may be the one slow turn: asked again once, like words not understood;
        // otherwise there are no words to answer: the reply stage speaks the fallback and escalates
        const askAgain = input.timedOut === true && !s.sttTimedOut;
        if (askAgain) s.sttTimedOut = true;
        startReply(s, out, 'answer', s.heldText, input.turn, askAgain ? undefined : input.error, askAgain && !s.heldText);
        s.heldText = '';
      }
      break;
    }

    case 'ReplyAudible':
      if (s.reply?.id !== input.replyId) break;
      s.reply.audible = true;
      if (s.phase === 'thinking') s.phase = 'speaking';
      break;

    case 'ReplyGenerated':
      if (s.reply?.id !== input.replyId) break;
      s.reply.done = true;
      s.reply.ending = input.ending;
      // asked by voice never to be called again: honoured at once, even if the goodbye is cut or the line drops
      if (input.ending?.kind === 'end_call' && input.ending.reason === 'opted_out') out.push({ type: 'OptOut', source: 'spoken' });
      break;

    case 'PlayoutDrained':
      if (s.reply?.id === input.replyId && s.reply.done && s.phase !== 'interrupted') finishReply(s, out);
      break;

    case 'TransferRequested':
      cutCurrent(s, out);
      s.phase = 'transferring';
      s.endAtMs = undefined;
      out.push({ type: 'Transfer', target: input.target });
      break;

    case 'TransferCompleted':
      end(s, out, 'transferred');
      break;

    case 'TransferFailed':
      if (s.phase !== 'transferring') break;
      s.phase = 'listening';
      s.lastActivityMs = s.mediaMs;
      break;

    case 'HangupRequested':
      cutCurrent(s, out);
      end(s, out, input.reason);
      break;

    case 'MediaEnded':
      cutCurrent(s, out);
      end(s, out, s.endReason === UNANSWERED ? UNANSWERED : input.reason === 'stop' ? 'caller_hangup' : 'media_closed');
      break;

    case 'OperatorJoined':
      if (over(s)) break;
      cutCurrent(s, out);
      s.phase = 'with_operator';
      s.withOperator = true;
      s.holdUntilMs = undefined;
      s.callbackOffered = false;
      s.endAtMs = undefined;
      s.endReason = undefined;
      break;

    case 'OperatorLeft':
      if (!s.withOperator || over(s)) break;
      s.withOperator = false;
      cutCurrent(s, out);
      if (input.then === 'end') { end(s, out, 'transferred'); break; }
      s.heldText = '';
      startReply(s, out, 'agent_back', '');
      break;

    case 'OperatorSpoke':
      if (!s.withOperator || over(s)) break;
      cutCurrent(s, out); // a newer message replaces one still playing
      startReply(s, out, 'operator', input.text);
      break;

    case 'HoldRequested':
      if (over(s) || s.phase === 'idle' || humanSide(s)) break;
      cutCurrent(s, out);
      s.endAtMs = undefined;
      s.endReason = undefined;
      s.heldText = '';
      s.holdUntilMs = s.mediaMs + (s.settings.operatorHoldMs ?? 0);
      startReply(s, out, 'hold', '');
      break;

    case 'MachineDetected':
      if (over(s)) break;
      if (s.settings.voicemail === 'hangup') { cutCurrent(s, out); end(s, out, 'voicemail'); break; }
      s.machine = true;
      if (!input.beepDone) {
        cutCurrent(s, out); // nobody listens to a greeting; the message waits for the beep, or gives up
        s.phase = 'ending';
        s.endReason = 'voicemail';
        s.endAtMs = s.mediaMs + VOICEMAIL_BEEP_WAIT_MS;
      } else if (s.reply?.kind !== 'voicemail') {
        cutCurrent(s, out);
        s.endAtMs = undefined;
        startReply(s, out, 'voicemail', '');
      }
      break;
  }
  return out;
}

function startReply(s: SessionState, out: SessionAction[], kind: ReplyKind, callerText: string, turn?: TurnTiming,
  sttFailure?: unknown, unheard = false): void {
  const id = ++s.lastReplyId;
  s.reply = { id, kind, callerText, audible: false, done: false };
  s.phase = kind === 'disclosure' ? 'disclosure' : kind === 'voicemail' || kind === 'farewell' ? 'ending' : 'thinking';
  s.lastActivityMs = s.mediaMs;
  out.push({ type: 'StartReply', replyId: id, kind, callerText, turn, ...(sttFailure !== undefined ? { sttFailure } : {}), ...(unheard ? { unheard } : {}) });
}

/** Stops the reply in flight, if any, keeping what was heard; words it never got to answer are held again. */
function cutCurrent(s: SessionState, out: SessionAction[]): void {
  const r = s.reply;
  if (!r) return;
  out.push({ type: 'CutReply', replyId: r.id });
  if (!r.audible && r.callerText) s.heldText = join(r.callerText, s.heldText);
  s.reply = undefined;
}

function transcribe(s: SessionState, out: SessionAction[], purpose: 'turn' | 'barge_in', turn?: TurnTiming): void {
  s.transcribing++;
  out.push(turn ? { type: 'FinalizeTranscript', purpose, turn } : { type: 'FinalizeTranscript', purpose });
}

/** The caller's turn is over and these are its words (`unheard`: spoken, and none of it understood). */
function onTurnWords(s: SessionState, out: SessionAction[], text: string, turn?: TurnTiming, unheard = false): void {
  if (over(s) || s.phase === 'ending') return;
  const verdict = classifyUtterance(text);
  if (humanSide(s)) { if (verdict !== 'no_words') out.push({ type: 'RecordCallerTurn', text }); return; }
  if (s.callbackOffered && verdict !== 'no_words') {
    out.push({ type: 'RecordCallerTurn', text });
    s.callbackOffered = false;
    cutCurrent(s, out);
    const yes = acceptsCallback(text);
    if (yes) out.push({ type: 'CallbackAccepted', text });
    startReply(s, out, yes ? 'callback_confirmed' : 'callback_declined', '');
    return;
  }
  if (verdict === 'no_words') {
    // noise, or a turn whose words already went with a barge-in: answer what is held, if nothing plays
    if (s.heldText && s.phase === 'listening') answer(s, out, turn);
    // speech not understood: the dialog says so and asks again, rather than leaving the caller in silence
    else if (unheard && s.phase === 'listening' && !s.callbackOffered) startReply(s, out, 'answer', '', turn, undefined, true);
    return;
  }
  // An acknowledgement is never an answer: it is noted, and the agent keeps going or keeps waiting.
  if (verdict === 'backchannel' && !s.heldText) { out.push({ type: 'RecordBackchannel', text }); return; }
  // a reply these words replace is cut first: what was heard of it came before them, in the transcript too
  if (s.phase !== 'disclosure') cutCurrent(s, out);
  out.push({ type: 'RecordCallerTurn', text });
  s.heldText = join(s.heldText, text);
  if (s.phase === 'disclosure') return; // answered once the disclosure has played
  answer(s, out, turn);
}

function answer(s: SessionState, out: SessionAction[], turn?: TurnTiming): void {
  cutCurrent(s, out); // a newer turn replaces a reply still in the making (or one the caller talked over)
  const text = s.heldText;
  s.heldText = '';
  startReply(s, out, 'answer', text, turn);
}

/** The transcript of a pending barge-in's speech. */
function onBargeInWords(s: SessionState, out: SessionAction[], text: string): void {
  if (s.phase !== 'interrupted') {
    // settled already (by interim words or as too short): words heard after a confirmation wait for the turn end
    if (s.phase === 'listening' && classifyUtterance(text) === 'words') {
      out.push({ type: 'RecordCallerTurn', text });
      s.heldText = join(s.heldText, text);
    }
    return;
  }
  const verdict = classifyUtterance(text);
  out.push({ type: 'ResolveBargeIn', verdict });
  if (verdict === 'words') confirmBargeIn(s, out, text);
  else resume(s, out, text);
}

function confirmBargeIn(s: SessionState, out: SessionAction[], text: string): void {
  out.push({ type: 'RecordInterruption' });
  cutCurrent(s, out); // what was heard of the reply goes in the transcript before the words that cut it
  // the words that cut in are the caller's turn (answered with what the turn's end adds); '' when interim words decided
  if (text) out.push({ type: 'RecordCallerTurn', text });
  s.phase = 'listening';
  s.heldText = join(s.heldText, text);
  s.lastActivityMs = s.mediaMs;
}

/** A false interruption: the paused reply goes on where it stopped. */
function resume(s: SessionState, out: SessionAction[], text: string): void {
  out.push({ type: 'RecordBackchannel', text });
  out.push({ type: 'ResumePlayout' });
  s.phase = s.reply ? (s.reply.audible ? 'speaking' : 'thinking') : 'listening';
}

/** The reply has played in full. */
function finishReply(s: SessionState, out: SessionAction[]): void {
  const r = s.reply!;
  s.reply = undefined;
  s.lastActivityMs = s.mediaMs;
  out.push({ type: 'CompleteReply', replyId: r.id });
  if (r.kind === 'disclosure' && !r.ending) {
    s.disclosureDelivered = true;
    out.push({ type: 'DisclosureDelivered' });
    if (s.heldText) answer(s, out);
    else startReply(s, out, 'opening', '');
    return;
  }
  if (r.kind === 'voicemail') { end(s, out, 'voicemail'); return; }
  if (r.kind === 'farewell') { end(s, out, s.endReason ?? 'completed'); return; }
  if (r.kind === 'hold') { s.phase = 'on_hold'; return; }
  if (s.withOperator) { s.phase = 'with_operator'; return; }
  if (r.kind === 'callback_confirmed' || r.kind === 'callback_declined') { end(s, out, UNANSWERED); return; }
  // a dialog's own word for the ending becomes one of the documented ended reasons
  if (r.ending?.kind === 'end_call') { end(s, out, endedReasonOf(r.ending.reason)); return; }
  if (r.ending?.kind === 'escalate' && s.settings.operatorHoldMs && !r.ending.reason.startsWith('adapter_failure')) {
    // the caller waits on hold in the handoff queue (a short message, then quiet) instead of being dropped
    out.push({ type: 'Escalate', reason: r.ending.reason });
    s.holdUntilMs = s.mediaMs + s.settings.operatorHoldMs;
    startReply(s, out, 'hold', '');
    return;
  }
  if (r.ending?.kind === 'escalate') {
    out.push({ type: 'Escalate', reason: r.ending.reason });
    s.phase = 'ending';
    s.endReason = r.ending.reason.startsWith('adapter_failure') ? 'adapter_failure' : 'escalated';
    s.endAtMs = s.mediaMs + s.settings.escalationHoldMs;
    return;
  }
  s.phase = 'listening';
  if (s.heldText && !s.callerInTurn) answer(s, out); // words that came while the reply finished playing
}

/** What the caller's keys decided (src/session/keypad.ts): an action, or a turn of keyed input to answer. */
function onKeys(s: SessionState, out: SessionAction[], k: KeyDecision): void {
  if (k.kind === 'collecting') return;
  out.push({ type: 'RecordCallerTurn', text: k.text });
  if (k.kind === 'entry') {
    s.heldText = join(s.heldText, k.text);
    if (s.phase !== 'disclosure') answer(s, out); // keyed during the disclosure: answered once it has played
    return;
  }
  switch (k.action) {
    case 'operator':
      out.push({ type: 'Escalate', reason: `the caller pressed ${k.text.slice(-1)} for a person` });
      cutCurrent(s, out);
      s.phase = 'transferring';
      s.endAtMs = undefined;
      out.push({ type: 'Transfer', target: 'operator' });
      break;
    case 'opt_out':
      // stored at once; the caller then hears it was honoured (a hang-up during the line changes nothing)
      cutCurrent(s, out);
      out.push({ type: 'OptOut', source: 'keypad' });
      s.endAtMs = undefined;
      s.endReason = 'opted_out';
      startReply(s, out, 'farewell', '');
      break;
    case 'end_call':
      cutCurrent(s, out);
      end(s, out, 'caller_keypad');
      break;
  }
}

function end(s: SessionState, out: SessionAction[], reason: string): void {
  s.phase = 'ended';
  s.endAtMs = undefined;
  out.push({ type: 'EndCall', reason });
}
