/**
 * The visitor's side of a handoff: while a demo conversation is in the handoff state (waiting in the queue or with
 * an operator), what the visitor types or says goes to the conversation for the operator, not to the agent. The
 * operator's app reads it on its refresh of the conversation; the operator answers with POST /v1/handoffs/<id>/reply.
 */
import type { ConversationRepo, Conversation } from '../repos/conversations.js';
import type { TurnReply } from '../conversations/demo.js';

/** Stores the visitor's message for the operator; nothing is sent to the agent. Empty text (nothing heard) stores nothing. */
export async function visitorTurn(repo: ConversationRepo, conv: Conversation, callerText: string,
  caller: Omit<TurnReply['caller'], 'text'>): Promise<Omit<TurnReply, 'processingMs'>> {
  if (callerText) await repo.append(conv.id, conv.tenant_id, 'caller', callerText, { source: caller.transcript_source, to: 'operator' });
  return {
    conversation_id: conv.id,
    agent: { text: '', entities: {}, escalation: null, ended: null },
    caller: { text: callerText, ...caller },
    state: conv.state,
    handoff: { handoff_state: conv.handoff_state ?? 'waiting' },
    delivered_to: 'operator',
  };
}
