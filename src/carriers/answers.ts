/** What a carrier's callbacks answer: its markup (XML or JSON), an empty acknowledgement, or a refusal. */
import type { ErrorCode } from '../errors.js';
import { problemBody } from '../problem.js';
import type { CarrierAnswer } from './contract.js';

export const xmlAnswer = (document: string): CarrierAnswer => ({ status: 200, contentType: 'application/xml', body: document });
export const jsonAnswer = (body: unknown, status = 200): CarrierAnswer => ({ status, contentType: 'application/json', body: JSON.stringify(body) });
/** an acknowledgement with no body: 204, or the 200 a carrier wants */
export const emptyAnswer = (status: 200 | 204 | 302 = 204): CarrierAnswer => (status === 204 ? { status } : { status, contentType: 'text/plain', body: '' });
/** a refusal in problem+json (a signed request that asks for something we do not have, a bad signature) */
export const problemAnswer = (code: Extract<ErrorCode, 'forbidden' | 'not_found'>, detail: string): CarrierAnswer =>
  ({ status: code === 'forbidden' ? 403 : 404, contentType: 'application/problem+json', body: JSON.stringify(problemBody(code, detail)) });
/** 403 and nothing more: a door that must not tell a stranger why (it would help them guess) */
export const bareForbidden = (): CarrierAnswer => ({ status: 403 });
