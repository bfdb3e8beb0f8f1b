/**
 * What a caller's turn asks of the agent beyond answering its question, at any point of the call: an opt-out, a
 * wrong number, a request for a person, a call-back, a decline, "who is this?", "say that again", a goodbye, or a
 * question of their own. Plain patterns over the words as recognised (no model): each is one place to extend.
 */

export type Intent =
  | 'opt_out' | 'wrong_number' | 'human' | 'callback' | 'decline' | 'who_is_this' | 'repeat' | 'goodbye' | 'question';

/** "stop calling", "don't call me again", "remove my number": the number goes on the tenant's DND list. */
const OPT_OUT_RE = /\b(stop calling|(?:do not|don'?t|never) (?:ever )?call (?:me|us|this number)|remove (?:my|this) number|take (?:me|my number) off|put me on (?:your|the) (?:do not call|dnd)|unsubscribe|do not disturb)\b/i;
const WRONG_NUMBER_RE = /\b(wrong number|(?:you(?:'ve| have)?|you got) the wrong (?:number|person)|no one (?:by|called) that name|there is no \w+ here)\b/i;
export const ESCALATION_RE = /\b(human|manager|real person|live person|(?<!estate )agent|(?:to|with) (?:someone|somebody)|representative|supervisor|operator)\b/i;
const CALLBACK_RE = /\b(call (?:me )?(?:back|later)|call me (?:tomorrow|on|at|in|next|this|after|around|tonight)|ring me (?:back|later)|(?:not|isn'?t) a good time|(?:i'?m|i am) (?:busy|driving|in a meeting)|talk later|can we (?:talk|speak) later)\b/i;
const DECLINE_RE = /\b(not interested|no thanks|no thank you|not looking|don'?t need|do not need)\b/i;
const WHO_RE = /\b(who (?:is|'s) (?:this|calling|speaking)|who are you|whom am i speaking|who am i (?:speaking|talking) (?:to|with)|why (?:are|is) (?:you|someone) calling|what is this (?:call )?about|what'?s this (?:call )?about|why did you call|where are you calling from|how did you get my number|is this a robot|are you (?:a )?(?:robot|bot|machine|real|an? ai|human))\b/i;
const REPEAT_RE = /^(?:sorry[,.!?]?\s*)?(?:(?:can|could|would) you )?(?:please )?(?:repeat(?: that| it| the question)?|say (?:that|it) again|come again|pardon(?: me)?|what did you (?:say|ask)|i didn'?t (?:catch|hear|get) (?:that|you|it)|sorry\??|what\??|huh\??)(?: please)?[.!?]*$/i;
const GOODBYE_RE = /^(?:(?:ok(?:ay)?|no|nope|thanks|thank you|that'?s all|nothing else|that'?s it)[,.! ]+)*(?:bye|goodbye|good bye|bye bye|see you)\b/i;
/** A question of the caller's own: ends with "?" or opens like one ("do you have parking", "what is the price"). */
const QUESTION_RE = /\?\s*$|^(?:(?:and|so|also|ok(?:ay)?|um|uh)[, ]+)?(?:what|what's|which|where|when|how|why|is there|are there|is it|do you|does it|does the|can i|can you tell|could you tell|tell me)\b/i;
/** "no", "nothing else", "that's all": nothing more to ask, once the agent asked whether there is anything else */
export const NOTHING_ELSE_RE = /^(?:(?:no|nope|nah|nothing(?: else)?|not really|that'?s all|that'?s it|i'?m good|all good|no thanks?|no thank you)\b[\s,.!]*)+(?:(?:thanks?|thank you)\b.*)?$/i;

export const wantsHuman = (text: string) => ESCALATION_RE.test(text);
export const isRepeatRequest = (text: string) => REPEAT_RE.test(text.trim());
export const isQuestion = (text: string) => QUESTION_RE.test(text.trim());

/** The intents of a turn, strongest first (an opt-out outranks a decline, a person outranks a question). */
export function intentsOf(text: string): Intent[] {
  const t = text.trim();
  if (!t) return [];
  const out: Intent[] = [];
  if (OPT_OUT_RE.test(t)) out.push('opt_out');
  if (WRONG_NUMBER_RE.test(t)) out.push('wrong_number');
  if (ESCALATION_RE.test(t)) out.push('human');
  if (CALLBACK_RE.test(t)) out.push('callback');
  if (DECLINE_RE.test(t)) out.push('decline');
  if (WHO_RE.test(t)) out.push('who_is_this');
  if (REPEAT_RE.test(t)) out.push('repeat');
  if (GOODBYE_RE.test(t)) out.push('goodbye');
  if (!out.includes('who_is_this') && !out.includes('repeat') && QUESTION_RE.test(t)) out.push('question');
  return out;
}

/** Replies that are not an attempt at the question asked: they never count toward giving up on it. */
export function isNonAnswer(text: string): boolean {
  const i = intentsOf(text);
  return i.includes('who_is_this') || i.includes('repeat') || i.includes('question');
}
