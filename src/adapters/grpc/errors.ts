/** AdapterError <-> gRPC status, both ways, so an error keeps its code across the wire. */
import { status, type ServiceError, Metadata } from '@grpc/grpc-js';
import { AdapterError } from '../types.js';

const TO_STATUS: Record<AdapterError['code'], status> = {
  timeout: status.DEADLINE_EXCEEDED,
  unavailable: status.UNAVAILABLE,
  failed: status.ABORTED,
  canceled: status.CANCELLED,
  invalid: status.INVALID_ARGUMENT,
};

/** What a server sends for a thrown error; anything that is not an AdapterError becomes INTERNAL without details. */
export function toServiceError(err: unknown): Partial<ServiceError> {
  if (err instanceof AdapterError) return { code: TO_STATUS[err.code], details: err.message, metadata: new Metadata() };
  return { code: status.INTERNAL, details: 'adapter implementation failed', metadata: new Metadata() };
}

export function fromServiceError(adapter: AdapterError['adapter'], err: unknown): AdapterError {
  if (err instanceof AdapterError) return err;
  const e = err as Partial<ServiceError>;
  const details = e.details || e.message || 'gRPC call failed';
  switch (e.code) {
    case status.DEADLINE_EXCEEDED: return new AdapterError(adapter, 'timeout', `${adapter}: ${details}`);
    case status.UNAVAILABLE: return new AdapterError(adapter, 'unavailable', `${adapter}: ${details}`);
    case status.CANCELLED: return new AdapterError(adapter, 'canceled', `${adapter}: ${details}`);
    case status.INVALID_ARGUMENT: return new AdapterError(adapter, 'invalid', `${adapter}: ${details}`);
    default: return new AdapterError(adapter, 'failed', `${adapter}: ${details}`);
  }
}
