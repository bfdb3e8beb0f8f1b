/**
 * The TwiML documents we send: <Connect><Stream> to our media socket, <Dial> for a cold transfer, and the two sides
 * of a warm one, a named <Conference> (max 4000 chars each).
 */
import { escapeXml, responseXml } from '../xml.js';

/** TwiML's documented size limit for the Twiml parameter */
export const MAX_TWIML_CHARS = 4000;

/**
 * Bidirectional stream to `url`: no query string (Twilio refuses one, error 31920), the per-call data travels as
 * <Parameter>s and comes back in start.customParameters.
 */
export function connectStreamTwiml(url: string, parameters: Record<string, string>): string {
  if (/[?#]/.test(url)) throw new RangeError('a <Stream> url may not carry a query string (Twilio error 31920)');
  const params = Object.entries(parameters).map(([name, value]) => `<Parameter name="${escapeXml(name)}" value="${escapeXml(value)}"/>`).join('');
  return responseXml(`<Connect><Stream url="${escapeXml(url)}">${params}</Stream></Connect>`);
}

/** Turns a call away (we take no calls on that number now): the caller hears a busy tone. */
export const rejectTwiml = (): string => responseXml('<Reject reason="busy"/>');

/**
 * Replaces what the call runs with a dial to `target` (E.164, or a SIP URI), shown our number (`callerId`): the
 * human sees the call come from us, and Twilio accepts only a number of the account as caller id.
 */
export function dialTwiml(target: string, callerId?: string): string {
  const noun = target.startsWith('sip:') ? `<Sip>${escapeXml(target)}</Sip>` : escapeXml(target);
  const attr = callerId ? ` callerId="${escapeXml(callerId)}"` : '';
  return responseXml(`<Dial${attr}>${noun}</Dial>`);
}

/**
 * Warm transfer, the caller's side: into the call's conference room, where it waits (Twilio's default hold music:
 * no waitUrl) until the human joins; when the caller leaves, the room ends and the human's call with it.
 */
export const holdInConferenceTwiml = (room: string): string =>
  responseXml(`<Dial><Conference startConferenceOnEnter="false" endConferenceOnExit="true" beep="false">${escapeXml(room)}</Conference></Dial>`);

/** Warm transfer, the human's side: the summary is said first, then the human joins the room, which starts it. */
export const whisperThenConferenceTwiml = (summary: string, room: string): string =>
  responseXml(`<Say>${escapeXml(summary)}</Say><Dial><Conference startConferenceOnEnter="true" endConferenceOnExit="true" beep="false">${escapeXml(room)}</Conference></Dial>`);

/** The caller waited for a human who did not answer: told so, then the call ends. */
export const nobodyAnsweredTwiml = (words: string): string => responseXml(`<Say>${escapeXml(words)}</Say><Hangup/>`);
