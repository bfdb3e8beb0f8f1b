/** One gRPC server exposing any subset of adapter implementations and tools (the simulators, or real providers). */
import * as grpc from '@grpc/grpc-js';
import type { AdapterSet } from '../types.js';
import { carrierHandlers } from './carrier.js';
import { dialogHandlers } from './dialog.js';
import { services } from './proto.js';
import { sttHandlers } from './stt.js';
import { ttsHandlers } from './tts.js';
import { toolsHandlers } from '../../tools/grpc.js';
import type { ToolRunner } from '../../tools/types.js';

export interface AdapterServer {
  /** host:port actually bound (port 0 resolves to the real port) */
  address: string;
  port: number;
  close(): Promise<void>;
}

export async function startAdapterServer(impls: Partial<AdapterSet> & { tools?: ToolRunner }, listen = '127.0.0.1:0'): Promise<AdapterServer> {
  const server = new grpc.Server();
  const svc = services();
  if (impls.carrier) server.addService(svc.carrier.service, carrierHandlers(impls.carrier));
  if (impls.stt) server.addService(svc.stt.service, sttHandlers(impls.stt));
  if (impls.dialog) server.addService(svc.dialog.service, dialogHandlers(impls.dialog));
  if (impls.tts) server.addService(svc.tts.service, ttsHandlers(impls.tts));
  if (impls.tools) server.addService(svc.tools.service, toolsHandlers(impls.tools));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(listen, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  const host = listen.slice(0, listen.lastIndexOf(':'));
  let closed = false;
  return {
    address: `${host}:${port}`,
    port,
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      return new Promise<void>((resolve) => {
        const force = setTimeout(() => { server.forceShutdown(); resolve(); }, 2000);
        server.tryShutdown(() => { clearTimeout(force); resolve(); });
      });
    },
  };
}
