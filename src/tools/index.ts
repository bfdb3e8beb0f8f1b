/**
 * Tool / integration adapters the dialog triggers: calendar_booking -> calendar.event.create (calendar slot),
 * crm_sync -> crm.lead.update (CRM slot), messaging_brochure -> messaging.template.send (messaging slot).
 * createTools picks an adapter server over gRPC when ADAPTER_TOOLS_URL is set, else the in-process runner with
 * the live integration of every slot whose keys are set (src/providers), the others simulated.
 */
import type { Config } from '../config.js';
import { createLogger, type Logger } from '../log.js';
import { selectSlot } from '../providers/catalog.js';
import { TOOL_PROVIDERS } from '../providers/index.js';
import { createLocalTools, type LocalToolOptions } from './local.js';
import { GrpcTools } from './grpc.js';
import { TOOL_NAMES, type ToolIntegration, type ToolName, type ToolRunner } from './types.js';

export * from './types.js';
export { createLocalTools, type LocalToolOptions } from './local.js';
export { GrpcTools, toolsHandlers } from './grpc.js';

const TOOL_SLOTS = { calendar_booking: 'calendar', crm_sync: 'crm', messaging_brochure: 'messaging' } as const satisfies Record<ToolName, string>;

export function createTools(config: Config, opts: Omit<LocalToolOptions, 'integrations'> & { log?: Logger } = {}): ToolRunner {
  if (config.ADAPTER_TOOLS_URL) return new GrpcTools(config.ADAPTER_TOOLS_URL, config.ADAPTER_TIMEOUT_MS);
  const integrations: Partial<Record<ToolName, ToolIntegration>> = {};
  for (const tool of TOOL_NAMES) {
    const slot = TOOL_SLOTS[tool];
    const sel = selectSlot(config as unknown as Record<string, unknown>, slot);
    const factory = sel.live ? TOOL_PROVIDERS[slot][sel.provider!] : undefined;
    if (factory) integrations[tool] = factory({ config, log: opts.log ?? createLogger('silent') });
  }
  return createLocalTools({ ...opts, integrations });
}
