/**
 * Whether the caller's answer to "Would you like us to call you back?" is a yes. A refusal word wins over any
 * yes ("no thanks, please don't"); asking again for a person counts as a yes, since the call-back brings one.
 */
const NO = /\b(no|nope|not|don'?t|never|nah|no thanks)\b/i;
const YES = /\b(yes|yeah|yep|sure|ok|okay|please|call me( back)?|alright|fine|person|human|someone)\b/i;

export function acceptsCallback(text: string): boolean {
  if (NO.test(text)) return false;
  return YES.test(text);
}
