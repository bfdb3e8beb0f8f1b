/** The Plivo XML our callbacks answer: the bidirectional <Stream> of a call, a transfer's <Dial> or <Conference>, a <Hangup>. */
import { escapeXml, responseXml } from '../xml.js';
import { hexOf, PLIVO_CONTENT_TYPE } from './codec.js';

/** Plivo numbers: country code and digits, no "+" */
export const plivoNumber = (e164: string) => e164.replace(/^\+/, '');

/**
 * The call's audio both ways to `mediaUrl`, mu-law 8 kHz; keepCallAlive holds the call while the stream runs.
 * The call id and its capability travel in extraHeaders (hex: Plivo allows only [A-Za-z0-9] there).
 */
export const streamXml = (mediaUrl: string, callId: string, token: string): string =>
  responseXml(`<Stream bidirectional="true" keepCallAlive="true" audioTrack="inbound" contentType="${PLIVO_CONTENT_TYPE}" `
    + `extraHeaders="callid=${hexOf(callId)},token=${hexOf(token)}">${escapeXml(mediaUrl)}</Stream>`);

/** Replaces what the call runs with a dial to `target` (E.164, or a SIP URI). */
export const dialXml = (target: string): string =>
  responseXml(`<Dial>${target.startsWith('sip:') ? `<User>${escapeXml(target)}</User>` : `<Number>${escapeXml(plivoNumber(target))}</Number>`}</Dial>`);

export const hangupXml = (): string => responseXml('<Hangup/>');

/** Turns a call away (we take no calls on that number now): busy. */
export const busyXml = (): string => responseXml('<Hangup reason="busy"/>');

/**
 * Warm transfer, the caller's side: into the call's conference room, muted with Plivo's background music until the
 * human joins (startConferenceOnEnter false); when the caller leaves, the room ends and the human's call with it.
 */
export const holdInConferenceXml = (room: string): string =>
  responseXml(`<Conference startConferenceOnEnter="false" endConferenceOnExit="true">${escapeXml(room)}</Conference>`);

/** Warm transfer, the human's side (the answer of the call we place to them): the summary first, then the room. */
export const whisperThenConferenceXml = (summary: string, room: string): string =>
  responseXml(`<Speak>${escapeXml(summary)}</Speak><Conference startConferenceOnEnter="true" endConferenceOnExit="true">${escapeXml(room)}</Conference>`);

/** The caller waited for a human who did not answer: told so, then the call ends. */
export const nobodyAnsweredXml = (words: string): string => responseXml(`<Speak>${escapeXml(words)}</Speak><Hangup/>`);
