/**
 * Where a session's results go: live items (deps.callEvents), the conversation's messages, tool runs.
 * Failures to publish are logged, never allowed to break the call.
 */
import type { CallEventSink } from '../stream/types.js';
import type { ConversationRepo } from '../repos/conversations.js';
import type { ToolRunner } from '../tools/types.js';
import type { Logger } from '../log.js';
import type { ToolOutcome } from '../adapters/types.js';
import type { CallLedger } from './ledger.js';

export interface SessionOutputs {
  callerSaid(text: string, latencyMs: number): void;
  agentSaid(text: string, latencyMs: number, truncated: boolean): void;
  entity(key: string, value: string | number): void;
  /** runs the tool and records its action on the call */
  tool(tool: string, args: Record<string, string>): Promise<ToolOutcome>;
  escalated(reason: string): void;
}

/**
 * Live items and stored messages leave after the turn's critical path, in order (setImmediate is FIFO): each one
 * starts a store write, and with the embedded PGlite that write runs on this thread inside the microtask chain
 * from turn end to first agent frame. Tool calls stay inline: the reply waits on them.
 */
export function deferred(out: SessionOutputs): SessionOutputs {
  return {
    callerSaid: (text, latencyMs) => { setImmediate(() => out.callerSaid(text, latencyMs)); },
    agentSaid: (text, latencyMs, truncated) => { setImmediate(() => out.agentSaid(text, latencyMs, truncated)); },
    entity: (key, value) => { setImmediate(() => out.entity(key, value)); },
    escalated: (reason) => { setImmediate(() => out.escalated(reason)); },
    tool: (tool, args) => out.tool(tool, args),
  };
}

export function sessionOutputs(o: {
  tenantId: string; callId: string; conversationId: string | null; events: CallEventSink; conversations: ConversationRepo;
  tools: ToolRunner; ledger: () => CallLedger; log: Logger; timeoutMs: number;
  /** the number called, for tools that reach the callee (CRM contact, booking attendee, message) */
  to?: string;
}): SessionOutputs {
  const warn = (what: string) => (err: unknown) => o.log.warn({ err, call_id: o.callId }, what);
  const publish = (item: Parameters<CallEventSink['publish']>[2]) => { o.events.publish(o.tenantId, o.callId, item).catch(warn('live item not published')); };
  const append = (role: 'caller' | 'agent', text: string, meta: Record<string, unknown>) => {
    if (o.conversationId) o.conversations.append(o.conversationId, o.tenantId, role, text, { call_id: o.callId, ...meta }).catch(warn('message not stored'));
  };
  return {
    callerSaid(text, latencyMs) {
      publish({ type: 'transcript', speaker: 'caller', text, latencyMs: Math.round(latencyMs), partial: false });
      append('caller', text, {});
    },
    agentSaid(text, latencyMs, truncated) {
      publish({ type: 'transcript', speaker: 'agent', text, latencyMs: Math.round(latencyMs), partial: false });
      append('agent', text, truncated ? { truncated: true } : {});
    },
    entity(key, value) { publish({ type: 'entity', key, value: String(value) }); },
    async tool(tool, args) {
      const outcome = await o.tools.run({ tenantId: o.tenantId, callId: o.callId, tool, arguments: args, ...(o.to ? { to: o.to } : {}) }, { timeoutMs: o.timeoutMs });
      o.ledger().actions.push({ type: outcome.type, status: outcome.status });
      return outcome;
    },
    escalated(reason) {
      publish({ type: 'escalation', reason });
      if (o.conversationId) o.conversations.requestHandoff(o.tenantId, o.conversationId, reason).catch(warn('handoff not requested'));
    },
  };
}
