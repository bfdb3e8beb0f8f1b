/** Carrier over gRPC: server handlers wrapping any CarrierAdapter, and a client implementing CarrierAdapter. */
import * as grpc from '@grpc/grpc-js';
import type { AdapterCallOptions, CarrierAdapter, CarrierOutcome, PlaceCallRequest, PlaceCallResult, TransferDone, TransferOptions } from '../types.js';
import { AdapterError } from '../types.js';
import { callUnary, unaryHandler, GrpcClient } from './calls.js';
import { PLACE_CALL_TIMEOUT_MS } from '../defaults.js';

interface PlaceCallMsg { call_id: string; tenant_id: string; to: string; from: string; media_url: string; parameters: Record<string, string> }
interface PlaceCallReply { carrier_call_id: string; outcome: string; detail: string }

const OUTCOMES: CarrierOutcome[] = ['answered', 'no_answer', 'busy', 'failed', 'voicemail'];

export function carrierHandlers(impl: CarrierAdapter): grpc.UntypedServiceImplementation {
  return {
    PlaceCall: unaryHandler<PlaceCallMsg, PlaceCallReply>(async (m, opts) => {
      const r = await impl.placeCall({
        callId: m.call_id, tenantId: m.tenant_id, to: m.to, from: m.from || undefined, mediaUrl: m.media_url, parameters: m.parameters ?? {},
      }, opts);
      return { carrier_call_id: r.carrierCallId, outcome: r.outcome.toUpperCase(), detail: r.detail ?? '' };
    }),
    Hangup: unaryHandler<{ carrier_call_id: string }, object>(async (m, opts) => {
      await impl.hangup(m.carrier_call_id, opts);
      return {};
    }),
    Transfer: unaryHandler<{ carrier_call_id: string; target: string; mode?: string; summary?: string }, { mode: string }>(async (m, opts) => {
      const warm = m.mode === 'warm';
      const done = await impl.transfer(m.carrier_call_id, m.target, { ...opts, mode: warm ? 'warm' : 'cold', ...(warm && m.summary ? { summary: m.summary } : {}) });
      return { mode: done?.mode ?? 'cold' };
    }),
  };
}


export class GrpcCarrier implements CarrierAdapter {
  readonly #rpc: GrpcClient;
  constructor(address: string, defaultTimeoutMs: number) {
    this.#rpc = new GrpcClient('carrier', 'carrier', address, defaultTimeoutMs);
  }

  async placeCall(req: PlaceCallRequest, opts?: AdapterCallOptions): Promise<PlaceCallResult> {
    const msg: PlaceCallMsg = {
      call_id: req.callId, tenant_id: req.tenantId, to: req.to, from: req.from ?? '', media_url: req.mediaUrl, parameters: req.parameters,
    };
    // PlaceCall waits for the callee to answer: its default deadline is a ring timeout, not the adapter timeout
    const ctx = { ...this.#rpc.ctx, defaultTimeoutMs: Math.max(this.#rpc.ctx.defaultTimeoutMs, PLACE_CALL_TIMEOUT_MS) };
    const r = await callUnary<PlaceCallReply>(ctx, this.#rpc.method('PlaceCall'), msg, opts);
    const outcome = r.outcome.toLowerCase() as CarrierOutcome;
    if (!OUTCOMES.includes(outcome)) throw new AdapterError('carrier', 'failed', `carrier returned outcome ${r.outcome}`);
    return { carrierCallId: r.carrier_call_id, outcome, ...(r.detail ? { detail: r.detail } : {}) };
  }

  async hangup(carrierCallId: string, opts?: AdapterCallOptions): Promise<void> {
    await callUnary(this.#rpc.ctx, this.#rpc.method('Hangup'), { carrier_call_id: carrierCallId }, opts);
  }

  async transfer(carrierCallId: string, target: string, opts?: TransferOptions): Promise<TransferDone> {
    const r = await callUnary<{ mode?: string }>(this.#rpc.ctx, this.#rpc.method('Transfer'),
      { carrier_call_id: carrierCallId, target, mode: opts?.mode ?? 'cold', summary: opts?.summary ?? '' }, opts);
    return { mode: r?.mode === 'warm' ? 'warm' : 'cold' };
  }

  close(): void { this.#rpc.close(); }
}
