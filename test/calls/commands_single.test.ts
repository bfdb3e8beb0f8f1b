/**
 * The embedded default (one instance, in-process bus; or one instance on PostgreSQL/Redis when set): hang-up,
 * transfer and erasure of a live call behave as before the command channel: the call stops, one call.completed.
 */
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { commandFlows } from './call_commands_flows.js';

// SIM_TIME_SCALE 0.1: the simulated callee talks ten times slower, so every call is still live when the command comes
const srv = await startTestServer({ env: { SIM_TIME_SCALE: '0.1', CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' } });
t.teardown(() => srv.close());
commandFlows(t, srv, srv);
