/** The live-stream wire protocol's constants, shared by the edge and (as copies) by the client library. */
import { z } from 'zod';

export const CLOSE = {
  /** the call ended and everything it said was delivered: do not reconnect */
  callEnded: { code: 1000, reason: 'call_ended' },
  serverShutdown: { code: 1001, reason: 'server_shutdown' },
  internal: { code: 1011, reason: 'internal_error' },
  /** the JWT the listener connected with has expired: reconnect with a fresh one */
  tokenExpired: { code: 4001, reason: 'token_expired' },
  /** the user's tokens were revoked (deleted, role or password changed, signed out): sign in again */
  tokenRevoked: { code: 4001, reason: 'token_revoked' },
  /** the listener read too slowly and its buffer passed the bound: reconnect with after_seq to resume */
  slowConsumer: { code: 4008, reason: 'slow_consumer' },
} as const;

const E164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number such as +14155550100');

/** The longest summary a warm transfer's human hears, characters (the runner cuts its own summaries to it too). */
export const TRANSFER_SUMMARY_CHARS = 1000;

/**
 * A transfer request: where (default the agent's transfer number), cold or warm (default the agent's
 * transfer_mode), and, warm, what the human hears first (default a summary written from the call so far).
 */
const transferFields = {
  target: E164.optional(),
  mode: z.enum(['cold', 'warm']).optional(),
  summary: z.string().trim().min(1).max(TRANSFER_SUMMARY_CHARS).regex(/^[^\u0000-\u001f\u007f]*$/, 'one line of plain text').optional(),
};

/** What a listener may send on the socket. */
export const clientMessage = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('transfer'), ...transferFields }),
]);
export type ClientMessage = z.infer<typeof clientMessage>;

export const transferBody = z.strictObject(transferFields);

/** Sent on the socket when a listener's request fails; never closes the socket. */
export interface ErrorReply { type: 'error'; request?: string; code: string; detail: string }
