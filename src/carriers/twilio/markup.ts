/** The TwiML documents we send: <Connect><Stream> to our media socket, and <Dial> for a transfer (max 4000 chars). */
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
