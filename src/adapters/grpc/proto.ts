/**
 * Loads proto/*.proto at run time with @grpc/proto-loader (no codegen step). Field names keep their
 * snake_case; enums come as strings, 64-bit numbers as JS numbers, oneofs name their set member.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { fromRoot } from '../../package_root.js';

const PROTO_DIR = fromRoot('proto') + '/';

export const LOADER_OPTIONS: protoLoader.Options = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true };

type ServiceCtor = grpc.ServiceClientConstructor;

let loaded: { carrier: ServiceCtor; stt: ServiceCtor; dialog: ServiceCtor; tts: ServiceCtor; tools: ServiceCtor } | undefined;

/** The service constructors (their .service is the definition a server registers). */
export function services() {
  if (!loaded) {
    const def = protoLoader.loadSync(['carrier.proto', 'speech.proto', 'dialog.proto', 'tts.proto', 'tools.proto'], { ...LOADER_OPTIONS, includeDirs: [PROTO_DIR] });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const pkg = grpc.loadPackageDefinition(def) as any;
    loaded = {
      carrier: pkg.voicecall.carrier.v1.Carrier,
      stt: pkg.voicecall.speech.v1.SpeechToText,
      dialog: pkg.voicecall.dialog.v1.Dialog,
      tts: pkg.voicecall.tts.v1.TextToSpeech,
      tools: pkg.voicecall.tools.v1.Tools,
    };
  }
  return loaded;
}

/** Int16Array -> little-endian bytes without copying (Node runs little-endian on every supported CPU). */
export function pcmToBytes(pcm: Int16Array): Buffer {
  return Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
}

/** Bytes -> a fresh, aligned Int16Array (a received Buffer may start at an odd offset). */
export function bytesToPcm(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length >> 1);
  new Uint8Array(out.buffer).set(bytes.subarray(0, out.length * 2));
  return out;
}
