/**
 * The plumbing every adapter shares on both sides of the wire: deadline and cancellation passed through,
 * errors mapped to AdapterError, server-stream back-pressure, nothing written after cancel.
 */
import { once } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import { AdapterError, type AdapterCallOptions } from '../types.js';
import { fromServiceError, toServiceError } from './errors.js';
import { services } from './proto.js';

type AdapterName = AdapterError['adapter'];

// ---------- server side ----------

/** AdapterCallOptions for an incoming call: its deadline as timeoutMs, client cancel as an abort. */
export function incomingOptions(call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>): { opts: AdapterCallOptions; dispose(): void } {
  const ctl = new AbortController();
  const onCancel = () => ctl.abort(new Error('client canceled the call'));
  call.on('cancelled', onCancel);
  const deadline = call.getDeadline();
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  const timeoutMs = Number.isFinite(at) ? Math.max(1, at - Date.now()) : undefined;
  return { opts: { signal: ctl.signal, timeoutMs }, dispose: () => call.removeListener('cancelled', onCancel) };
}

export function unaryHandler<Req, Res>(fn: (req: Req, opts: AdapterCallOptions) => Promise<Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const { opts, dispose } = incomingOptions(call);
    Promise.resolve()
      .then(() => fn(call.request, opts))
      .then((res) => callback(null, res), (err) => callback(toServiceError(err) as grpc.ServiceError))
      .finally(dispose);
  };
}

export function serverStreamHandler<Req, Out>(fn: (req: Req, opts: AdapterCallOptions) => AsyncIterable<Out>): grpc.handleServerStreamingCall<Req, Out> {
  return async (call) => {
    const { opts, dispose } = incomingOptions(call);
    try {
      for await (const item of fn(call.request, opts)) {
        if (call.cancelled) return;
        if (!call.write(item)) await once(call, 'drain', { signal: opts.signal }); // a cancel ends the wait
      }
      if (!call.cancelled) call.end();
    } catch (err) {
      if (!call.cancelled) call.emit('error', toServiceError(err));
    } finally {
      dispose();
    }
  };
}

// ---------- client side ----------

export interface ClientCallContext { adapter: AdapterName; defaultTimeoutMs: number }

/** The channel to one adapter service of an adapter server, its call context, and its methods by name. */
export class GrpcClient {
  readonly ctx: ClientCallContext;
  readonly channel: grpc.Client;
  constructor(service: keyof ReturnType<typeof services>, adapter: AdapterName, address: string, defaultTimeoutMs: number) {
    const Ctor = services()[service];
    this.channel = new Ctor(address, grpc.credentials.createInsecure());
    this.ctx = { adapter, defaultTimeoutMs };
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  method(name: string): any { return (this.channel as any)[name].bind(this.channel); }

  close(): void { this.channel.close(); }
}

type UnaryMethod = (req: unknown, md: grpc.Metadata, o: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => grpc.ClientUnaryCall;
type StreamMethod = (req: unknown, md: grpc.Metadata, o: grpc.CallOptions) => grpc.ClientReadableStream<unknown>;

export function callUnary<Res>(ctx: ClientCallContext, method: UnaryMethod, req: unknown, opts?: AdapterCallOptions): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    if (opts?.signal?.aborted) return reject(new AdapterError(ctx.adapter, 'canceled', `${ctx.adapter} call canceled`));
    const deadline = Date.now() + (opts?.timeoutMs ?? ctx.defaultTimeoutMs);
    const onAbort = () => call.cancel();
    const call = method(req, new grpc.Metadata(), { deadline }, (err, res) => {
      opts?.signal?.removeEventListener('abort', onAbort);
      if (err) reject(fromServiceError(ctx.adapter, err));
      else resolve(res as Res);
    });
    opts?.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A server stream without a gRPC deadline: the caller bounds the wait for each item (streamWithDeadline), so a
 * consumer pulling at playback pace is not cut off; on abort or timeout the call is cancelled.
 */
export async function* callServerStream<Res>(ctx: ClientCallContext, method: StreamMethod, req: unknown, opts?: AdapterCallOptions): AsyncGenerator<Res> {
  if (opts?.signal?.aborted) throw new AdapterError(ctx.adapter, 'canceled', `${ctx.adapter} call canceled`);
  const call = method(req, new grpc.Metadata(), {});
  const onAbort = () => call.cancel();
  opts?.signal?.addEventListener('abort', onAbort, { once: true });
  let finished = false;
  call.on('status', () => { finished = true; });
  try {
    for await (const msg of call) {
      if (opts?.signal?.aborted) break;
      yield msg as Res;
    }
    if (opts?.signal?.aborted) throw new AdapterError(ctx.adapter, 'canceled', `${ctx.adapter} call canceled`);
  } catch (err) {
    throw fromServiceError(ctx.adapter, err);
  } finally {
    opts?.signal?.removeEventListener('abort', onAbort);
    // Stops the server when the consumer leaves early. Only then: every cancel is an HTTP/2 RST_STREAM, and
    // nghttp2 closes a connection that sees too many of them (rapid-reset protection, ~1000 burst then 33/s).
    if (!finished) call.cancel();
  }
}
