/**
 * What the agent says around a handoff on a call (fixed words, not the dialog model's): going on hold, nobody came
 * (a call-back is offered), the goodbye after the caller's answer, and taking the call back after an operator.
 * The hold message names a colleague so a caller (and the simulator's callee) knows to wait, not answer.
 */
import type { ReplyKind } from '../session/events.js';

export const HOLD_SCRIPT: Partial<Record<ReplyKind, string>> = {
  hold: 'Please stay on the line while I connect you with a colleague.',
  callback_offer: "I'm sorry, no colleague is free to take your call right now. Would you like us to call you back?",
  callback_confirmed: 'Thank you. A colleague will call you back soon. Goodbye.',
  callback_declined: 'Thank you for your patience. Goodbye.',
  agent_back: "Thanks for talking with my colleague. I'm the AI assistant again. Is there anything else I can help you with?",
};
