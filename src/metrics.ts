/** Prometheus metrics (prom-client) on a registry of our own, so tests can build many apps in one process. */
import { Registry, collectDefaultMetrics, Counter, Histogram, Gauge } from 'prom-client';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({ name: 'http_requests_total', help: 'HTTP requests by method, route and status', labelNames: ['method', 'route', 'status'] as const, registers: [registry] }),
    httpDuration: new Histogram({ name: 'http_request_duration_seconds', help: 'HTTP request duration', labelNames: ['method', 'route'] as const, buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5], registers: [registry] }),
    activeCalls: new Gauge({ name: 'calls_active', help: 'Calls currently held by this process', registers: [registry] }),
    turnLatency: new Histogram({ name: 'call_turn_latency_seconds', help: 'End of caller speech to first agent audio frame', buckets: [0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1.2, 2, 5], registers: [registry] }),
    webhookDeliveries: new Counter({ name: 'webhook_deliveries_total', help: 'Outbound webhook attempts by outcome', labelNames: ['outcome'] as const, registers: [registry] }),
    streamListeners: new Gauge({ name: 'stream_listeners', help: 'WebSocket stream listeners attached to this edge', registers: [registry] }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
