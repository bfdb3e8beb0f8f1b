/**
 * Where a session's results go: live items (deps.callEvents), the conversation's messages, tool runs.
 * Failures to publish are logged, never allowed to break the call.
 */
import type { CallEventSink } from '../stream/types.js';
import type { ConversationRepo } from '../repos/conversations.js';
import type { ToolRunner } from '../tools/types.js';
import type { Logger } from '../log.js';
import type { CallLedger } from './ledger.js';

export interface SessionOutputs {
  callerSaid(text: string, latencyMs: number): void;
  agentSaid(text: string, latencyMs: number, truncated: boolean): void;
  entity(key: string, value: string | number): void;
  tool(tool: string, args: Record<string, string>): Promise<void>;
  escalated(reason: string): void;
}

export function sessionOutputs(o: {
  tenantId: string; callId: string; conversationId: string | null; events: CallEventSink; conversations: ConversationRepo;
  tools: ToolRunner; ledger: () => CallLedger; log: Logger; timeoutMs: number;
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
      const action = await o.tools.run({ tenantId: o.tenantId, callId: o.callId, tool, arguments: args }, { timeoutMs: o.timeoutMs });
      o.ledger().actions.push(action);
    },
    escalated(reason) {
      publish({ type: 'escalation', reason });
      if (o.conversationId) o.conversations.requestHandoff(o.tenantId, o.conversationId, reason).catch(warn('handoff not requested'));
    },
  };
}
