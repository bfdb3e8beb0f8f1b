/** The XML the carriers' markup is written in (TwiML, Plivo XML): escaping and the document around a <Response>. */

export const escapeXml = (s: string): string => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** `<?xml …?><Response>{verbs}</Response>` */
export const responseXml = (verbs: string): string => `<?xml version="1.0" encoding="UTF-8"?><Response>${verbs}</Response>`;
