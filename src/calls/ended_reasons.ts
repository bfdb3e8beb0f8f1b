/**
 * Every `ended_reason` a call can end with, and what each means: the OpenAPI document (components.schemas.
 * EndedReason) and the README list them from here, and test/calls/ended_reasons.test.ts fails when the code ends a
 * call with a reason missing here. A dialog's end reason passes through endedReasonOf, so an adapter cannot add one.
 */
export const ENDED_REASON_DESCRIPTIONS = {
  completed: 'the conversation ran to its end: the agent said goodbye, or the media stopped after the agent ended it',
  caller_hangup: 'the caller hung up (the carrier stopped the media stream)',
  media_closed: 'the media connection closed without the carrier saying the call stopped',
  media_timeout: 'answered, but the carrier\'s media stream never connected',
  voicemail: 'an answering machine picked up (a message was left, or the call hung up, as the agent\'s voicemail setting says)',
  escalated: 'the call went to a person with no hold: the caller asked for one, or the agent could not go on (hold_seconds 0)',
  escalation_unanswered: 'the caller waited on hold and no operator accepted within the hold time (a call-back was offered)',
  transferred: 'transferred to a number, or taken by an operator who then closed it',
  hangup_api: 'ended by POST /v1/calls/{id}/hangup',
  adapter_failure: 'a speech, dialog or voice adapter failed past its fallback and no person could take over',
  no_answer: 'the callee did not answer',
  busy: 'the line was busy',
  carrier_failed: 'the carrier could not place the call (its own failure status)',
  carrier_error: 'the request to the carrier failed (refused, unreachable, timed out)',
  server_shutdown: 'the service stopped while the call ran',
  instance_lost: 'the instance running the call stopped answering; another instance ended it',
  erased: 'ended by a privacy erasure of the caller (POST /v1/privacy/erase)',
  opted_out: 'the callee asked, by key or in words, not to be called again: the number is on the do-not-disturb list',
  caller_declined: 'the callee was not interested or said goodbye before the script was done',
  wrong_number: 'the person who answered is not the lead',
  callback_requested: 'the callee asked to be called back; extracted_data.callback_at holds the time, inside calling hours',
  caller_keypad: 'the caller pressed the key the agent\'s keypad maps to ending the call',
  no_response: 'silence on the line after one "are you still there?"',
  max_duration: 'a browser call reached its longest allowed length',
} as const satisfies Record<string, string>;

export type EndedReason = keyof typeof ENDED_REASON_DESCRIPTIONS;
export const ENDED_REASONS = Object.keys(ENDED_REASON_DESCRIPTIONS) as EndedReason[];

const known = new Set<string>(ENDED_REASONS);
export const isEndedReason = (v: string): v is EndedReason => known.has(v);

/**
 * The ended_reason of a dialog's end_call: its reason when it is one of ours, "not_interested" (a model's word for
 * it) as caller_declined, anything else as completed.
 */
export function endedReasonOf(dialogReason: string): EndedReason {
  if (isEndedReason(dialogReason)) return dialogReason;
  return dialogReason === 'not_interested' ? 'caller_declined' : 'completed';
}
