/**
 * The contract of a carrier with the call engine. Beyond the CarrierAdapter calls (place, hang up, transfer) a real
 * carrier calls us back: over HTTP (status callbacks, answering-machine results, the answer document that starts
 * the media stream) at /v1/carriers/<name>/<hook>, and over its media WebSocket at /v1/media/<name>, where its codec
 * turns the wire protocol into the MediaStream every call session speaks. Every callback and upgrade is verified
 * (the carrier's signature, a per-call capability or a deployment secret) before it is believed.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { CarrierAdapter, CarrierCallEvent } from '../adapters/types.js';
import type { CallCapabilities } from '../auth/call_capability.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { MediaStream } from '../media/stream.js';

export const CARRIER_NAMES = ['twilio', 'plivo', 'exotel'] as const;
export type CarrierName = (typeof CARRIER_NAMES)[number];

/** An HTTP request the carrier made to one of our callbacks. */
export interface CarrierRequest {
  method: string;
  /** the URL the carrier requested, as it would have signed it: the public base address + the path and query */
  url: string;
  headers: IncomingHttpHeaders;
  /** the body as received (signatures are computed over it or its parameters) */
  rawBody: Buffer;
  /** form (application/x-www-form-urlencoded) or JSON fields of the body, and the query's */
  params: Record<string, string>;
}

export interface CarrierAnswer {
  status: number;
  contentType?: string;
  body?: string;
}

/**
 * The parameters every call is dialed with come back from the carrier when its stream starts (Twilio <Parameter>s,
 * Plivo extraHeaders, Exotel's URL): `call_id`, `tenant_id`, and the call's single-use media capability under this
 * name.
 */
export const STREAM_TOKEN_PARAMETER = 'stream_token';

/** The media socket's address the carrier connects to: PUBLIC_BASE_URL with ws(s), /media/<name>. */
export const mediaUrlOf = (publicBaseUrl: string, name: string): string => `${publicBaseUrl.replace(/^http/, 'ws')}/media/${name}`;

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** What the engine serves for the carrier in use: its media socket and, for a live carrier, its HTTP callbacks. */
export interface CarrierEdge {
  readonly name: CarrierName;
  /** the carrier's media WebSocket: verifies the upgrade, then hands each started stream to the engine */
  mediaUpgrade: UpgradeHandler;
  /** answers the carrier's HTTP callback `hook` (its own names: 'status', 'amd', 'answer', ...); none: no callbacks */
  callback?(hook: string, req: CarrierRequest): Promise<CarrierAnswer>;
  /** ends the sockets and timers it holds (shutdown) */
  close(): Promise<void>;
}

export interface LiveCarrier extends CarrierAdapter, CarrierEdge {
  callback(hook: string, req: CarrierRequest): Promise<CarrierAnswer>;
}

/** A call the carrier rings us with: a lead calling one of our numbers. */
export interface InboundOffer {
  /** our number that was called (E.164) */
  to: string;
  /** who calls (E.164) */
  from: string;
  /** the carrier's id of the call */
  carrierCallId: string;
}

/** The engine took the call: its id, the parameters its stream must hand back, and where the carrier's news goes. */
export interface InboundAccepted {
  callId: string;
  parameters: Record<string, string>;
  onEvent(e: CarrierCallEvent): void;
}

export interface LiveCarrierContext {
  config: Config;
  log: Logger;
  /** where the carrier reaches us, ending in /v1 (PUBLIC_BASE_URL) */
  publicBaseUrl: string;
  /**
   * where the carrier reaches this instance itself, ending in /v1 (INSTANCE_PUBLIC_URL, else PUBLIC_BASE_URL): the
   * media socket's address in answers, so a call's audio reaches the instance that runs it behind a balancer
   */
  mediaBaseUrl?: string;
  /** this engine's media capabilities: each call's stream proves itself with one (single use) */
  capabilities: CallCapabilities;
  /** hands a started media stream to its call; false = not a call of this instance (the codec closes it, 1008) */
  onStream(callId: string, stream: MediaStream): boolean;
  /**
   * A call rings one of our numbers: the engine creates it (the number's tenant and inbound agent) and answers what
   * the carrier needs to stream it, or undefined when nobody takes calls on that number (or the tenant is at its
   * limit): the carrier then rejects the call as busy.
   */
  inbound(offer: InboundOffer): Promise<InboundAccepted | undefined>;
}

export type LiveCarrierFactory = (ctx: LiveCarrierContext) => LiveCarrier;
