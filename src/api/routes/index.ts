/**
 * Every route module of the API, in mount order. A module adds its routes (and WebSocket endpoints) to the
 * table; app.ts mounts them and openapi.ts documents them.
 */
import type { RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { authRoutes } from './auth.js';
import { agentRoutes } from './agents.js';
import { userRoutes } from './users.js';
import { streamRoutes } from './stream.js';
import { privacyRoutes } from './privacy.js';
import { analyticsRoutes } from './analytics.js';
import { campaignRoutes } from './campaigns.js';
import { inboundRoutes } from './inbound.js';
import { callRoutes } from './calls.js';
import { mediaRoutes } from './media.js';
import { browserCallRoutes } from './browser_calls.js';
import { carrierRoutes } from './carriers.js';
import { conversationRoutes } from './conversations.js';
import { leadRoutes } from './leads.js';
import { dndRoutes } from './dnd.js';
import { handoffRoutes } from './handoffs.js';
import { inboundCallRoutes } from './inbound_calls.js';
import { tenantRoutes } from './tenants.js';

export type RouteModule = (t: RouteTable, deps: AppDeps) => void;

export const ROUTE_MODULES: RouteModule[] = [
  authRoutes,
  agentRoutes,
  userRoutes,
  tenantRoutes,
  streamRoutes,
  privacyRoutes,
  analyticsRoutes,
  campaignRoutes,
  inboundRoutes,
  conversationRoutes,
  leadRoutes,
  dndRoutes,
  handoffRoutes,
  inboundCallRoutes,
  callRoutes,
  mediaRoutes,
  browserCallRoutes,
  carrierRoutes,
];
