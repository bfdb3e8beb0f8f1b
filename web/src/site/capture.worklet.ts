/**
 * AudioWorklet that hands each 128-sample block of the microphone to the page, unchanged (lossless PCM: the
 * service's speech detector and speech-to-text want the samples, not a compressed recording).
 */
declare abstract class AudioWorkletProcessor {
  readonly port: MessagePort;
  abstract process(inputs: Float32Array[][]): boolean;
}
declare function registerProcessor(name: string, ctor: new () => AudioWorkletProcessor): void;

class CaptureProcessor extends AudioWorkletProcessor {
  process(inputs: Float32Array[][]): boolean {
    const channel = inputs[0]?.[0];
    if (channel) this.port.postMessage(channel.slice(0));
    return true;
  }
}

registerProcessor('voicecall-capture', CaptureProcessor);
