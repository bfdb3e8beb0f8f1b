/** Tool / integration contract: the names the dialog triggers, the action types and statuses of call.completed. */
import type { AdapterCallOptions, ToolOutcome } from '../adapters/types.js';

export const TOOL_ACTIONS = {
  calendar_booking: 'calendar.event.create',
  crm_sync: 'crm.lead.update',
  messaging_brochure: 'messaging.template.send',
} as const;
export type ToolName = keyof typeof TOOL_ACTIONS;
export const TOOL_NAMES = Object.keys(TOOL_ACTIONS) as ToolName[];
export const isToolName = (name: string): name is ToolName => Object.hasOwn(TOOL_ACTIONS, name);

/** What call.completed lists in actions_triggered. */
export interface ToolAction { type: string; status: string }
export interface ToolInvocation {
  tenantId: string; callId: string; tool: string; arguments: Record<string, string>;
  /** the number called (E.164): whom a CRM contact, a booking or a message is about when the arguments name no phone */
  to?: string;
}

/** What a live provider answered to one tool run (one HTTP exchange, retries inside). */
export interface IntegrationAnswer {
  httpStatus: number;
  /** the provider's answer, trimmed to what a model may use (ids, times) or the error it gave */
  result?: Record<string, unknown>;
}

/** The live provider behind one tool (HubSpot for crm_sync, Cal.com for calendar_booking, WhatsApp for messaging_brochure). */
export interface ToolIntegration {
  /** Throws AdapterError on a network failure or timeout; any HTTP answer resolves, error statuses included. */
  invoke(inv: ToolInvocation, opts?: AdapterCallOptions): Promise<IntegrationAnswer>;
}

export interface ToolRunner {
  /** per tool: simulated, live (keys present), or grpc (an adapter server runs it) */
  modes: Record<ToolName, 'simulated' | 'live' | 'grpc'>;
  /** Never throws for a known tool: failures, timeouts and cancellation come back as statuses. */
  run(inv: ToolInvocation, opts?: AdapterCallOptions): Promise<ToolOutcome>;
  close(): Promise<void>;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'ok', 201: 'created', 202: 'accepted', 400: 'bad_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found',
  409: 'conflict', 422: 'unprocessable_entity', 429: 'rate_limited', 499: 'canceled', 500: 'internal_error',
  501: 'not_implemented', 502: 'bad_gateway', 503: 'unavailable', 504: 'timeout',
};

/** '<http_status>_<text>' as in call.completed actions_triggered. */
export const actionStatus = (http: number, text = STATUS_TEXT[http] ?? 'error') => `${http}_${text}`;

/** The status an adapter failure is reported as. */
export function failureStatus(code: string): string {
  switch (code) {
    case 'timeout': return actionStatus(504);
    case 'canceled': return actionStatus(499);
    case 'unavailable': return actionStatus(503);
    case 'invalid': return actionStatus(400);
    default: return actionStatus(500);
  }
}
