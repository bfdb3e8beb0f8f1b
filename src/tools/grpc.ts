/** Tools over gRPC (proto/tools.proto): a server wrapping any ToolRunner, and a client that is one. */
import * as grpc from '@grpc/grpc-js';
import { callUnary, unaryHandler, type ClientCallContext } from '../adapters/grpc/calls.js';
import { services } from '../adapters/grpc/proto.js';
import { AdapterError, type AdapterCallOptions } from '../adapters/types.js';
import { failureStatus, isToolName, TOOL_ACTIONS, TOOL_NAMES, type ToolAction, type ToolInvocation, type ToolRunner } from './types.js';

interface InvokeMsg { tenant_id: string; call_id: string; tool: string; arguments: Record<string, string> }

export function toolsHandlers(runner: ToolRunner): grpc.UntypedServiceImplementation {
  return {
    Invoke: unaryHandler<InvokeMsg, ToolAction>((m, opts) =>
      runner.run({ tenantId: m.tenant_id, callId: m.call_id, tool: m.tool, arguments: m.arguments ?? {} }, opts)),
  };
}

export class GrpcTools implements ToolRunner {
  readonly modes = Object.fromEntries(TOOL_NAMES.map((t) => [t, 'grpc'])) as ToolRunner['modes'];
  readonly #client: grpc.Client;
  readonly #ctx: ClientCallContext;
  constructor(address: string, defaultTimeoutMs: number) {
    const Ctor = services().tools;
    this.#client = new Ctor(address, grpc.credentials.createInsecure());
    this.#ctx = { adapter: 'tool', defaultTimeoutMs };
  }

  async run(inv: ToolInvocation, opts?: AdapterCallOptions): Promise<ToolAction> {
    if (!isToolName(inv.tool)) throw new AdapterError('tool', 'invalid', `unknown tool ${inv.tool}`);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const method = (this.#client as any).Invoke.bind(this.#client);
    const msg: InvokeMsg = { tenant_id: inv.tenantId, call_id: inv.callId, tool: inv.tool, arguments: inv.arguments };
    try {
      return await callUnary<ToolAction>(this.#ctx, method, msg, opts);
    } catch (err) {
      return { type: TOOL_ACTIONS[inv.tool], status: failureStatus(err instanceof AdapterError ? err.code : 'failed') };
    }
  }

  async close(): Promise<void> { this.#client.close(); }
}
