/**
 * The caller's keys (DTMF) as the session's input. A key the agent's keypad gives an action does it at once
 * (src/calls/types.ts KEY_ACTIONS); any other key is input to the dialog: keys are collected until the caller
 * presses # or stops pressing for KEYS_GAP_MS of media time, then answered as one caller turn whose text says
 * where it came from ("[keypad] 42"), so the transcript, the live stream and the dialog all see it.
 */
import type { KeyAction } from '../calls/types.js';
import type { SessionState } from './events.js';

/** keys further apart than this are two entries, media ms */
export const KEYS_GAP_MS = 2000;
/** the most keys one entry collects */
const MAX_KEYS = 32;

export type KeyDecision =
  /** a key with an action: do it (the press is recorded as the caller's turn first) */
  | { kind: 'action'; action: KeyAction; text: string }
  /** the keys collected so far are the caller's turn now */
  | { kind: 'entry'; text: string }
  /** collected; wait for more */
  | { kind: 'collecting' };

export const keypadText = (digits: string) => `[keypad] ${digits}`;

/** What one key press means (and the state it leaves: collected keys). */
export function pressKey(s: SessionState, digit: string): KeyDecision {
  const action = s.settings.keypad?.[digit];
  if (action && !s.keys) return { kind: 'action', action, text: keypadText(digit) };
  if (digit === '#') return takeKeys(s) ?? { kind: 'collecting' };
  const digits = (s.keys?.digits ?? '') + digit;
  s.keys = { digits, atMs: s.mediaMs };
  return digits.length >= MAX_KEYS ? takeKeys(s)! : { kind: 'collecting' };
}

/** Keys the caller has stopped pressing: their entry, once media time has passed the gap. */
export function keysDue(s: SessionState): KeyDecision | undefined {
  return s.keys && s.mediaMs - s.keys.atMs >= KEYS_GAP_MS ? takeKeys(s) : undefined;
}

function takeKeys(s: SessionState): KeyDecision | undefined {
  const digits = s.keys?.digits;
  s.keys = undefined;
  return digits ? { kind: 'entry', text: keypadText(digits) } : undefined;
}
