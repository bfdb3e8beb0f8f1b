/**
 * Tool / integration adapters the dialog triggers: calendar_booking -> calendar.event.create (calendar slot),
 * crm_sync -> crm.lead.update (CRM slot), messaging_brochure -> messaging.template.send (messaging slot).
 * createTools picks an adapter server over gRPC when ADAPTER_TOOLS_URL is set, else the in-process runner
 * (simulated; a slot with keys present reports 501: live integrations live in an adapter server).
 */
import type { Config } from '../config.js';
import { isLive, type ProviderSlot } from '../integrations.js';
import { createLocalTools, type LocalToolOptions } from './local.js';
import { GrpcTools } from './grpc.js';
import { TOOL_NAMES, type ToolName, type ToolRunner } from './types.js';

export * from './types.js';
export { createLocalTools, type LocalToolOptions } from './local.js';
export { GrpcTools, toolsHandlers } from './grpc.js';

const TOOL_SLOTS: Record<ToolName, ProviderSlot> = { calendar_booking: 'calendar', crm_sync: 'crm', messaging_brochure: 'messaging' };

export function createTools(config: Config, opts: Omit<LocalToolOptions, 'live'> = {}): ToolRunner {
  if (config.ADAPTER_TOOLS_URL) return new GrpcTools(config.ADAPTER_TOOLS_URL, config.ADAPTER_TIMEOUT_MS);
  return createLocalTools({ ...opts, live: TOOL_NAMES.filter((t) => isLive(config, TOOL_SLOTS[t])) });
}
