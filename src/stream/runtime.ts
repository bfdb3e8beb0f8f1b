/**
 * The streaming area's runtime, built once per process by buildServices: the call_events store, the sink the
 * call engine publishes through (deps.callEvents), and the WebSocket edge (feeds, listeners, heartbeats).
 */
import type { Bus } from '../bus/bus.js';
import type { Db } from '../db/db.js';
import { outageBufferOf } from '../db/outage.js';
import type { Logger } from '../log.js';
import { StreamEdge, type EdgeOptions } from './edge.js';
import { CallEventStore } from './event_store.js';
import { StoredCallEventSink } from './sink.js';

export interface StreamRuntime {
  store: CallEventStore;
  sink: StoredCallEventSink;
  edge: StreamEdge;
  close(): Promise<void>;
}

export function createStreamRuntime(parts: { db: Db; bus: Bus; log: Logger; edge?: Partial<EdgeOptions> }): StreamRuntime {
  const store = new CallEventStore(parts.db);
  const sink = new StoredCallEventSink(store, parts.bus, parts.log, parts.db.kind, outageBufferOf(parts.db));
  const edge = new StreamEdge(store, parts.bus, parts.log.child({ area: 'stream' }), parts.edge);
  return { store, sink, edge, close: () => edge.close() };
}
