/**
 * Simulator magic numbers (Twilio test-number style). In simulator mode the destination number decides how the
 * simulated carrier and the simulated callee behave; any other valid number is answered by a cooperative callee.
 *
 * | Number          | Carrier outcome | Callee behaviour                                                          |
 * |-----------------|-----------------|---------------------------------------------------------------------------|
 * | +15005550001    | no_answer       | never picks up (no media)                                                 |
 * | +15005550002    | busy            | line busy (no media)                                                      |
 * | +15005550003    | failed          | carrier rejects the call (no media)                                       |
 * | +15005550004    | voicemail       | answering machine: plays a greeting, then stays silent                    |
 * | +15005550005    | answered        | answers one question, then hangs up mid-call                              |
 * | +15005550006    | answered        | barges in while the agent is speaking ("sorry, who is this?"), then cooperates |
 * | +15005550007    | answered        | asks for a human at the first question ("can I speak to a real person?")  |
 * | +15005550008    | answered        | silent callee: says nothing (agent prompts once, then ends no_response)  |
 * | +15005550009    | answered        | cooperative, and asks for the brochure to be sent                         |
 * | +15005550010    | answered        | answers the first question by pressing 9 on the keypad, then cooperates   |
 * | anything else   | answered        | cooperative: gives name, intent, budget and a preferred slot, with "uh huh" backchannels |
 */
import type { CarrierOutcome } from './types.js';

export type SimScenario =
  | 'cooperative' | 'no_answer' | 'busy' | 'failed' | 'voicemail'
  | 'hangup_mid_call' | 'barge_in' | 'asks_for_human' | 'silent' | 'wants_brochure' | 'presses_keys';

export interface SimNumber { outcome: CarrierOutcome; scenario: SimScenario; description: string }

export const SIM_NUMBERS: Readonly<Record<string, SimNumber>> = Object.freeze({
  '+15005550001': { outcome: 'no_answer', scenario: 'no_answer', description: 'never picks up' },
  '+15005550002': { outcome: 'busy', scenario: 'busy', description: 'line busy' },
  '+15005550003': { outcome: 'failed', scenario: 'failed', description: 'carrier rejects the call' },
  '+15005550004': { outcome: 'voicemail', scenario: 'voicemail', description: 'answering machine greeting, then silence' },
  '+15005550005': { outcome: 'answered', scenario: 'hangup_mid_call', description: 'answers one question, then hangs up' },
  '+15005550006': { outcome: 'answered', scenario: 'barge_in', description: 'interrupts the agent, then cooperates' },
  '+15005550007': { outcome: 'answered', scenario: 'asks_for_human', description: 'asks for a real person' },
  '+15005550008': { outcome: 'answered', scenario: 'silent', description: 'says nothing' },
  '+15005550009': { outcome: 'answered', scenario: 'wants_brochure', description: 'cooperative, asks for the brochure' },
  '+15005550010': { outcome: 'answered', scenario: 'presses_keys', description: 'presses 9 at the first question' },
});

const COOPERATIVE: SimNumber = { outcome: 'answered', scenario: 'cooperative', description: 'cooperative callee' };

/** The simulated behaviour for a destination number (E.164). */
export function simNumberFor(to: string): SimNumber {
  return SIM_NUMBERS[to] ?? COOPERATIVE;
}
