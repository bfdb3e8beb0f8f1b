/**
 * The simulated callee's SCRIPT (what it says), not its socket: given the agent's words (read from the carrier's side
 * channel, or decoded from tone code: callee_ear.ts), what the callee says next. Deterministic per call id: the persona (name, intent, budget, preferred slot), reaction delays and
 * backchannels come from a PRNG seeded by the call id. The scenario comes from the dialled number (sim_numbers.ts).
 *
 * Usage by the media side: greeting() when the call connects; duringAgentSpeech(textSoFar) as agent words are
 * decoded while the agent talks (backchannels, barge-in); reply(agentText) when the agent's utterance ends.
 */
import type { SimScenario } from '../sim_numbers.js';

export interface CalleePersona {
  name: string; intent: string; budget: string; slot: string;
  /** the offline voice the callee speaks with (when simulated calls speak for real) */
  voice: CalleeVoiceName;
}

/** Words after the default agent's disclosure ("... this conversation may be recorded."), 0 before its end. */
function wordsAfterDisclosure(text: string): number {
  const end = text.search(/\bmay be recorded[.!]/i);
  return end < 0 ? 0 : text.slice(end).trim().split(/\s+/).length - 3;
}

/** male Flite voices: the grammar ears read every persona line below right in both, through a phone line (slt does not) */
export const CALLEE_VOICES = ['rms', 'awb'] as const;
export type CalleeVoiceName = (typeof CALLEE_VOICES)[number];

export interface CalleeReply {
  /** what to say (spoken in the persona's offline voice, or as tone code), or null to stay silent */
  say: string | null;
  /** reaction time before speaking, ms of media time */
  delayMs: number;
  /** hang up after saying it (at once when say is null) */
  hangUp: boolean;
  /** keys pressed on the phone's keypad (DTMF) instead of speaking, when set */
  keys?: string;
}

export interface CalleeInterjection { say: string; kind: 'backchannel' | 'interruption' }

/** what a callee may say over the agent (duringAgentSpeech): rendered ahead, since it must come while the agent talks */
export const INTERJECTIONS = { interruption: 'Who is this?', backchannel: 'Okay.' } as const;

// Spelled as spoken and within what the offline grammar ears hear in both voices (test/adapters/callee_heard.test.ts),
// so a simulated call's answers are heard: rms's "Rahul" and "one point two million" ("billion") were not.
const NAMES = ['Ravi', 'Arjun', 'Deepak', 'Karan', 'Vikram', 'Amit', 'Rohan', 'Sanjay'];
const INTENTS = ['a two bedroom apartment', 'a three bedroom villa', 'an office space', 'a plot', 'a house'];
const BUDGETS = ['four hundred thousand dollars', 'fifty lakh rupees', 'one point two crore rupees', 'eighty lakh rupees', 'two hundred fifty thousand dollars'];
const SLOTS = ['tomorrow at ten a m', 'next Tuesday at three p m', 'Friday at eleven thirty a m', 'tomorrow at four p m', 'next Monday at two p m'];
/** every answer a persona may give, by field (tests check the ears hear them all) */
export const PERSONA_CHOICES = { name: NAMES, intent: INTENTS, budget: BUDGETS, slot: SLOTS } as const;

/** FNV-1a of the call id, then mulberry32: small, fast, reproducible. */
function prng(seedText: string): () => number {
  let h = 0x811c9dc5;
  for (let i = 0; i < seedText.length; i++) { h ^= seedText.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
  let a = h;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The question the agent ended on (its last sentence with '?'), or the whole text. */
function lastSentence(text: string): string {
  return text.match(/[^.!?]+[.!?]*/g)?.filter((x) => x.trim()).at(-1) ?? text;
}

function lastQuestion(text: string): string {
  const questions = text.match(/[^.!?]*\?/g);
  return (questions ? questions[questions.length - 1] : text).toLowerCase();
}

export class SimulatedCallee {
  readonly persona: CalleePersona;
  readonly #rand: () => number;
  #questionsAnswered = 0;
  #interrupted = false;
  /** barged in on the current agent utterance: its (truncated) end is not a question to answer */
  #awaitingAnswerToInterruption = false;
  #utteranceInterjected = false;
  #hungUp = false;
  #utterancesHeard = 0;

  /** `name`: the lead's own (the call's context), else one of the personas' */
  constructor(readonly callId: string, readonly scenario: SimScenario, name?: string) {
    this.#rand = prng(callId);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(this.#rand() * xs.length)];
    this.persona = { name: pick(NAMES), intent: pick(INTENTS), budget: pick(BUDGETS), slot: pick(SLOTS), voice: pick(CALLEE_VOICES) };
    if (name?.trim()) this.persona.name = name.trim();
  }

  get hungUp(): boolean { return this.#hungUp; }

  /** Every line this callee may say (rendered ahead when its voice takes time: its answers come on its own clock). */
  lines(): string[] {
    const p = this.persona;
    return [INTERJECTIONS.interruption, INTERJECTIONS.backchannel, `My name is ${p.name}.`, `I am looking for ${p.intent}.`,
      `My budget is around ${p.budget}.`, `${capitalise(p.slot)} works for me.`, 'No, thank you.', 'Yes.'];
  }

  /** Said as soon as the call connects (an answering machine's greeting), or null. */
  greeting(): string | null {
    return this.scenario === 'voicemail'
      ? `Hi, you have reached ${this.persona.name}. Please leave a message after the tone.`
      : null;
  }

  /** While the agent is still speaking: a backchannel or a barge-in, at most one per agent utterance. */
  duringAgentSpeech(agentTextSoFar: string): CalleeInterjection | null {
    if (this.#utteranceInterjected || this.#hungUp) return null;
    const words = agentTextSoFar.trim().split(/\s+/).filter(Boolean).length;
    // The first utterance is the AI disclosure, which cannot be interrupted: this caller cuts into the next one, a
    // few words in (questions are short). The agent may ask its first question with no pause after the disclosure,
    // which the ear then hears as one utterance: its words are counted from the disclosure's end.
    const afterDisclosure = this.#utterancesHeard >= 1 ? words : wordsAfterDisclosure(agentTextSoFar);
    if (this.scenario === 'barge_in' && !this.#interrupted && afterDisclosure >= 3) {
      this.#interrupted = this.#utteranceInterjected = this.#awaitingAnswerToInterruption = true;
      return { say: INTERJECTIONS.interruption, kind: 'interruption' };
    }
    if ((this.scenario === 'cooperative' || this.scenario === 'wants_brochure') && words >= 12) {
      this.#utteranceInterjected = true;
      return this.#rand() < 0.6 ? { say: INTERJECTIONS.backchannel, kind: 'backchannel' } : null;
    }
    return null;
  }

  /**
   * The agent finished its turn (`agentText` is everything actually heard since the callee last spoke): the answer.
   * After a barge-in the truncated utterance gets no answer: the callee waits for the agent's response to it.
   */
  reply(agentText: string): CalleeReply {
    this.#utteranceInterjected = false;
    this.#utterancesHeard++;
    const delayMs = 300 + Math.floor(this.#rand() * 400);
    const silent = (hangUp = false): CalleeReply => ({ say: null, delayMs, hangUp });
    const say = (text: string, hangUp = false): CalleeReply => ({ say: text, delayMs, hangUp });
    if (this.#hungUp) return silent(true);
    if (this.#awaitingAnswerToInterruption) { this.#awaitingAnswerToInterruption = false; return silent(); }
    const lower = agentText.toLowerCase();
    if (this.scenario === 'voicemail' || this.scenario === 'silent') return silent();
    if (/\b(good ?bye|bye)\b/.test(lower)) { this.#hungUp = true; return say('Bye.', true); }
    // on hold until something follows: a person who picks up and asks in the same breath is answered
    if (/connect you with a colleague|transfer/.test(lastSentence(lower))) return silent();
    const q = lastQuestion(agentText);
    if (/anything else/.test(q)) return say('No, thank you.');
    // a statement (the disclosure, a confirmation) is let pass: the question that follows is the one to answer
    if (!agentText.includes('?')) return silent();
    if (this.scenario === 'hangup_mid_call' && this.#questionsAnswered >= 1) { this.#hungUp = true; return silent(true); }
    if (this.scenario === 'asks_for_human') return say('Can I speak to a real person, please?');
    // answers the first question with the keypad: 9, which agents commonly map to opting out
    if (this.scenario === 'presses_keys' && this.#questionsAnswered === 0) { this.#questionsAnswered++; return { say: null, delayMs, hangUp: false, keys: '9' }; }
    this.#questionsAnswered++;
    const p = this.persona;
    if (/\bname\b/.test(q)) return say(`My name is ${p.name}.`);
    if (/\b(budget|spend|afford|price)\b/.test(q)) return say(`My budget is around ${p.budget}.`);
    if (/\b(when|what time|visit|schedule|suit|available|slot)\b/.test(q)) return say(`${capitalise(p.slot)} works for me.`);
    if (/looking for|interested|help you|today|want|need/.test(q)) {
      return say(`I am looking for ${p.intent}.${this.scenario === 'wants_brochure' ? ' Can you send me the brochure?' : ''}`);
    }
    if (/still there/.test(lower)) return say('Yes.');
    return say('Could you repeat that?');
  }
}

const capitalise = (s: string) => s[0].toUpperCase() + s.slice(1);
