/** Tools over gRPC (proto/tools.proto): a server wrapping any ToolRunner, and a client that is one. */
import * as grpc from '@grpc/grpc-js';
import { callUnary, unaryHandler, GrpcClient } from '../adapters/grpc/calls.js';
import { AdapterError, type AdapterCallOptions, type ToolOutcome } from '../adapters/types.js';
import { failureStatus, isToolName, TOOL_ACTIONS, TOOL_NAMES, type ToolAction, type ToolInvocation, type ToolRunner } from './types.js';

interface InvokeMsg { tenant_id: string; call_id: string; tool: string; arguments: Record<string, string>; to?: string }

export function toolsHandlers(runner: ToolRunner): grpc.UntypedServiceImplementation {
  return {
    Invoke: unaryHandler<InvokeMsg, ToolAction>((m, opts) =>
      runner.run({ tenantId: m.tenant_id, callId: m.call_id, tool: m.tool, arguments: m.arguments ?? {}, ...(m.to ? { to: m.to } : {}) }, opts)),
  };
}

export class GrpcTools implements ToolRunner {
  readonly modes = Object.fromEntries(TOOL_NAMES.map((t) => [t, 'grpc'])) as ToolRunner['modes'];
  readonly #rpc: GrpcClient;
  constructor(address: string, defaultTimeoutMs: number) {
    this.#rpc = new GrpcClient('tools', 'tool', address, defaultTimeoutMs);
  }

  async run(inv: ToolInvocation, opts?: AdapterCallOptions): Promise<ToolOutcome> {
    if (!isToolName(inv.tool)) throw new AdapterError('tool', 'invalid', `unknown tool ${inv.tool}`);
    const method = this.#rpc.method('Invoke');
    const msg: InvokeMsg = { tenant_id: inv.tenantId, call_id: inv.callId, tool: inv.tool, arguments: inv.arguments, to: inv.to ?? '' };
    try {
      return await callUnary<ToolAction>(this.#rpc.ctx, method, msg, opts);
    } catch (err) {
      return { type: TOOL_ACTIONS[inv.tool], status: failureStatus(err instanceof AdapterError ? err.code : 'failed') };
    }
  }

  async close(): Promise<void> { this.#rpc.close(); }
}
