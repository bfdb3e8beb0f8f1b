/**
 * The simulated callee's SCRIPT (what it says), not its socket: given the agent's decoded words, what the callee
 * says next. Deterministic per call id: the persona (name, intent, budget, preferred slot), reaction delays and
 * backchannels come from a PRNG seeded by the call id. The scenario comes from the dialled number (sim_numbers.ts).
 *
 * Usage by the media side: greeting() when the call connects; duringAgentSpeech(textSoFar) as agent words are
 * decoded while the agent talks (backchannels, barge-in); reply(agentText) when the agent's utterance ends.
 */
import type { SimScenario } from '../sim_numbers.js';

export interface CalleePersona { name: string; intent: string; budget: string; slot: string }

export interface CalleeReply {
  /** what to say (rendered as SimVoice), or null to stay silent */
  say: string | null;
  /** reaction time before speaking, ms of media time */
  delayMs: number;
  /** hang up after saying it (at once when say is null) */
  hangUp: boolean;
  /** keys pressed on the phone's keypad (DTMF) instead of speaking, when set */
  keys?: string;
}

export interface CalleeInterjection { say: string; kind: 'backchannel' | 'interruption' }

const NAMES = ['Anna Lee', 'Ravi Kumar', 'Maria Garcia', 'John Smith', 'Priya Sharma', 'Chen Wei', 'Fatima Khan', 'Lucas Martin'];
const INTENTS = ['a two bedroom apartment', 'a three bedroom villa', 'a small office space', 'a plot of land near the city', 'a family home with a garden'];
const BUDGETS = ['400,000 dollars', '50 lakh rupees', '1.2 million dollars', '80 lakh rupees', '250,000 dollars'];
const SLOTS = ['tomorrow at 10 am', 'next Tuesday at 3 pm', 'Friday at 11:30 am', 'tomorrow at 4 pm', 'next Monday at 2 pm'];

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

  constructor(readonly callId: string, readonly scenario: SimScenario) {
    this.#rand = prng(callId);
    const pick = <T>(xs: T[]) => xs[Math.floor(this.#rand() * xs.length)];
    this.persona = { name: pick(NAMES), intent: pick(INTENTS), budget: pick(BUDGETS), slot: pick(SLOTS) };
  }

  get hungUp(): boolean { return this.#hungUp; }

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
    // few words in (questions are short).
    if (this.scenario === 'barge_in' && !this.#interrupted && this.#utterancesHeard >= 1 && words >= 3) {
      this.#interrupted = this.#utteranceInterjected = this.#awaitingAnswerToInterruption = true;
      return { say: 'Sorry, who is this?', kind: 'interruption' };
    }
    if ((this.scenario === 'cooperative' || this.scenario === 'wants_brochure') && words >= 12) {
      this.#utteranceInterjected = true;
      return this.#rand() < 0.6 ? { say: 'uh huh', kind: 'backchannel' } : null;
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
    if (/connect you with a colleague|transfer/.test(lower)) return silent();
    const q = lastQuestion(agentText);
    if (!agentText.includes('?')) return say('Okay.');
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
    if (/still there/.test(lower)) return say('Yes, I am here.');
    return say('Sorry, could you say that again?');
  }
}

const capitalise = (s: string) => s[0].toUpperCase() + s.slice(1);
