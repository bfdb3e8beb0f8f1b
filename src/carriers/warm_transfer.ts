/**
 * What every carrier's warm transfer shares: the caller waits (hold audio) while the human is called and hears the
 * call's summary, then the two are connected. Twilio and Plivo do it with a conference room named after our call
 * (no personal data in the name); Exotel with its Connect applet's playback to the callee (carrier READMEs).
 */

/** The conference room of a call's warm transfer: our call id only, never a number or a name. */
export const transferRoom = (callId: string): string => `transfer-${callId}`;

/** What the caller hears when the human of a warm transfer did not answer (busy, no answer, failed), before the call ends. */
export const NOBODY_ANSWERED = 'Sorry, nobody could take your call right now. We will get back to you soon. Goodbye.';

/** The words a warm transfer says first: the summary, never empty. */
export function whisperText(summary: string | undefined): string {
  const s = summary?.replace(/\s+/g, ' ').trim();
  return s || 'A call from the voice agent.';
}
