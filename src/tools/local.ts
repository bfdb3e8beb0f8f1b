/**
 * In-process tool runner: a tool with a live integration (src/providers: HubSpot, Cal.com, WhatsApp) calls it;
 * the others are simulated and answer like the real ones would (201 for a booked slot, 422 for an unusable one,
 * 200 CRM update, 202 queued message). Either way the result is '<http_status>_<text>', and a failure is a
 * status, never an exception that could end the call.
 */
import { withDeadline } from '../adapters/deadline.js';
import { AdapterError, type ToolOutcome } from '../adapters/types.js';
import { actionStatus, failureStatus, isToolName, TOOL_ACTIONS, type IntegrationAnswer, type ToolAction, type ToolInvocation, type ToolIntegration, type ToolName, type ToolRunner } from './types.js';

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?([+-]\d{2}:\d{2}|Z)$/;

function simulatedStatus(tool: ToolName, args: Record<string, string>): number {
  switch (tool) {
    case 'calendar_booking': return args.start && ISO_WITH_OFFSET.test(args.start) && !Number.isNaN(Date.parse(args.start)) ? 201 : 422;
    case 'crm_sync': return 200;
    case 'messaging_brochure': return 202;
  }
}

export interface LocalToolOptions {
  /** tools with a live provider */
  integrations?: Partial<Record<ToolName, ToolIntegration>>;
  /** forced HTTP failure per tool for the simulator and tests, e.g. { crm_sync: 503 } -> '503_unavailable' */
  failures?: Partial<Record<ToolName, number>>;
  /** called with every completed run (tests, audit) */
  onRun?: (inv: ToolInvocation, action: ToolAction) => void;
  warn?: (msg: string) => void;
}

export function createLocalTools(opts: LocalToolOptions = {}): ToolRunner {
  const live = opts.integrations ?? {};
  const modes = Object.fromEntries(Object.keys(TOOL_ACTIONS).map((t) => [t, live[t as ToolName] ? 'live' : 'simulated'])) as ToolRunner['modes'];
  return {
    modes,
    async run(inv, callOpts) {
      if (!isToolName(inv.tool)) throw new AdapterError('tool', 'invalid', `unknown tool ${inv.tool}`);
      const tool = inv.tool;
      let outcome: ToolOutcome;
      try {
        const integration = live[tool];
        const answer: IntegrationAnswer = await withDeadline('tool', callOpts, async (signal) => (integration
          ? integration.invoke(inv, { signal })
          : { httpStatus: opts.failures?.[tool] ?? simulatedStatus(tool, inv.arguments) }));
        outcome = { type: TOOL_ACTIONS[tool], status: actionStatus(answer.httpStatus), ...(answer.result ? { result: answer.result } : {}) };
      } catch (err) {
        outcome = { type: TOOL_ACTIONS[tool], status: failureStatus(err instanceof AdapterError ? err.code : 'failed') };
      }
      opts.onRun?.(inv, { type: outcome.type, status: outcome.status });
      return outcome;
    },
    async close() {},
  };
}
