/**
 * Transfer of a call to a human, asked by a listener (socket message or POST /v1/calls/:id/transfer).
 * The call engine owns the real thing (deps.calls.transfer: carrier transfer, handoff, 'transfer' item, the
 * agent stops speaking). Until that service exists in this process, the fallback here does the part that needs
 * no carrier: the call's conversation moves to the handoff state, the call is marked human_escalation, and the
 * 'transfer' item is published to listeners.
 */
import type { AppDeps } from '../api/deps.js';
import { ApiError } from '../errors.js';
import { ConversationRepo } from '../repos/conversations.js';
import { TERMINAL_STATUSES } from './protocol.js';

export interface TransferRequest { target?: string; by: string }

interface CallTransferService {
  transfer(tenantId: string, callId: string, req: TransferRequest): Promise<unknown>;
}

/** deps.calls when the call engine provides transfer (typed loosely: its module belongs to the calls owner). */
function engineOf(deps: AppDeps): CallTransferService | undefined {
  const calls = (deps as unknown as { calls?: Partial<CallTransferService> }).calls;
  return typeof calls?.transfer === 'function' ? (calls as CallTransferService) : undefined;
}

export async function transferCall(deps: AppDeps, tenantId: string, callId: string, req: TransferRequest): Promise<unknown> {
  const engine = engineOf(deps);
  if (engine) return engine.transfer(tenantId, callId, req);
  return transferWithoutEngine(deps, tenantId, callId, req);
}

/** The handoff half of a transfer, straight on the calls/conversations tables. */
export async function transferWithoutEngine(deps: AppDeps, tenantId: string, callId: string, req: TransferRequest) {
  const r = await deps.db.query<{ status: string; conversation_id: string | null }>(
    'SELECT status, conversation_id FROM calls WHERE id = $1 AND tenant_id = $2', [callId, tenantId]);
  const call = r.rows[0];
  if (!call) throw new ApiError('not_found', 'call not found');
  if (TERMINAL_STATUSES.has(call.status)) throw new ApiError('conflict', `call has already ended (${call.status})`);
  const reason = req.target ? `transfer to ${req.target} requested` : 'transfer to a human requested';
  const conversation = call.conversation_id
    ? await new ConversationRepo(deps.db).requestHandoff(tenantId, call.conversation_id, reason)
    : undefined;
  await deps.db.query('UPDATE calls SET human_escalation = true, updated_at = now() WHERE id = $1 AND tenant_id = $2', [callId, tenantId]);
  // 'operator': no number given, the tenant's human queue takes it (handoff routes).
  const target = req.target ?? 'operator';
  const item = await deps.callEvents.publish(tenantId, callId, { type: 'transfer', target, by: req.by });
  return {
    call_id: callId,
    status: call.status,
    target,
    conversation_id: call.conversation_id,
    handoff_state: conversation?.handoff_state ?? null,
    seq: item.seq,
  };
}
