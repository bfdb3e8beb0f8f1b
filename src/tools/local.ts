/**
 * In-process tool runner. Simulated providers answer like the real ones would (201 for a booked slot, 422 for
 * an unusable one, 200 CRM update, 202 queued message). No live HTTP integration is implemented here (there is
 * no network to test one against): a slot whose keys are present answers '501_not_implemented' with a warning.
 * Live integrations belong in an adapter server reached over gRPC (ADAPTER_TOOLS_URL).
 */
import { withDeadline } from '../adapters/deadline.js';
import { AdapterError } from '../adapters/types.js';
import { actionStatus, failureStatus, isToolName, TOOL_ACTIONS, type ToolAction, type ToolInvocation, type ToolName, type ToolRunner } from './types.js';

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?([+-]\d{2}:\d{2}|Z)$/;

function simulatedStatus(tool: ToolName, args: Record<string, string>): number {
  switch (tool) {
    case 'calendar_booking': return args.start && ISO_WITH_OFFSET.test(args.start) && !Number.isNaN(Date.parse(args.start)) ? 201 : 422;
    case 'crm_sync': return 200;
    case 'messaging_brochure': return 202;
  }
}

export interface LocalToolOptions {
  /** tools whose integration keys are present */
  live?: ToolName[];
  /** forced HTTP failure per tool for the simulator and tests, e.g. { crm_sync: 503 } -> '503_unavailable' */
  failures?: Partial<Record<ToolName, number>>;
  /** called with every completed run (tests, audit) */
  onRun?: (inv: ToolInvocation, action: ToolAction) => void;
  warn?: (msg: string) => void;
}

export function createLocalTools(opts: LocalToolOptions = {}): ToolRunner {
  const live = new Set(opts.live ?? []);
  const modes = Object.fromEntries(Object.keys(TOOL_ACTIONS).map((t) => [t, live.has(t as ToolName) ? 'live' : 'simulated'])) as ToolRunner['modes'];
  return {
    modes,
    async run(inv, callOpts) {
      if (!isToolName(inv.tool)) throw new AdapterError('tool', 'invalid', `unknown tool ${inv.tool}`);
      const tool = inv.tool;
      let action: ToolAction;
      try {
        const http = await withDeadline('tool', callOpts, async () => {
          if (live.has(tool)) {
            opts.warn?.(`${tool}: no live integration is implemented in this service; reporting 501 (use an adapter server, ADAPTER_TOOLS_URL)`);
            return 501;
          }
          return opts.failures?.[tool] ?? simulatedStatus(tool, inv.arguments);
        });
        action = { type: TOOL_ACTIONS[tool], status: actionStatus(http) };
      } catch (err) {
        action = { type: TOOL_ACTIONS[tool], status: failureStatus(err instanceof AdapterError ? err.code : 'failed') };
      }
      opts.onRun?.(inv, action);
      return action;
    },
    async close() {},
  };
}
