/**
 * Records the microphone as 16 kHz mono PCM and encodes a WAV for POST /v1/conversations/<id>/audio.
 * The AudioContext runs at 16 kHz, so the browser resamples the device's rate; an AudioWorklet collects the
 * samples. Browser voice processing (echo cancellation, noise suppression, gain) is off: the service's
 * detector decides what is speech from the audio as captured.
 */
import { WaveFile } from 'wavefile';
import captureWorklet from './capture.worklet.ts?worker&url';

export const SAMPLE_RATE_HZ = 16_000;

export class MicRecording {
  #chunks: Float32Array[] = [];
  #samples = 0;
  #level = 0;
  #stopped = false;

  private constructor(private ctx: AudioContext, private stream: MediaStream, private node: AudioWorkletNode) {
    node.port.onmessage = (ev: MessageEvent<Float32Array>) => {
      if (this.#stopped) return;
      this.#chunks.push(ev.data);
      this.#samples += ev.data.length;
      let sum = 0;
      for (const v of ev.data) sum += v * v;
      this.#level = Math.max(this.#level * 0.9, Math.sqrt(sum / ev.data.length));
    };
  }

  /** Asks for the microphone (the browser prompts once) and starts collecting samples. */
  static async start(): Promise<MicRecording> {
    if (!navigator.mediaDevices?.getUserMedia) throw new Error('This browser cannot record audio here (a secure https:// page is needed).');
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false },
    });
    const ctx = new AudioContext({ sampleRate: SAMPLE_RATE_HZ });
    try {
      await ctx.audioWorklet.addModule(captureWorklet);
      const node = new AudioWorkletNode(ctx, 'voicecall-capture', { numberOfInputs: 1, numberOfOutputs: 1, channelCount: 1 });
      ctx.createMediaStreamSource(stream).connect(node);
      // A node must reach the destination to be pulled; the processor writes nothing, so this is silent.
      node.connect(ctx.destination);
      return new MicRecording(ctx, stream, node);
    } catch (err) {
      stream.getTracks().forEach((t) => t.stop());
      await ctx.close();
      throw err;
    }
  }

  get seconds(): number { return this.#samples / SAMPLE_RATE_HZ; }
  /** Recent loudness, 0..1 (RMS of the latest blocks, decaying). */
  get level(): number { return this.#level; }

  /** Stops the microphone and returns the recording as a 16-bit PCM WAV. */
  async stop(): Promise<Blob> {
    this.#stopped = true;
    this.node.port.onmessage = null;
    this.stream.getTracks().forEach((t) => t.stop());
    await this.ctx.close();
    const pcm = new Int16Array(this.#samples);
    let at = 0;
    for (const chunk of this.#chunks) {
      for (const v of chunk) pcm[at++] = Math.max(-32768, Math.min(32767, Math.round(v * 32767)));
    }
    return pcmToWav(pcm, SAMPLE_RATE_HZ);
  }

  /** Stops without producing a recording. */
  async cancel(): Promise<void> {
    this.#stopped = true;
    this.stream.getTracks().forEach((t) => t.stop());
    await this.ctx.close();
  }
}

export function pcmToWav(pcm: Int16Array, sampleRateHz: number): Blob {
  const wav = new WaveFile();
  wav.fromScratch(1, sampleRateHz, '16', pcm);
  return new Blob([wav.toBuffer() as Uint8Array<ArrayBuffer>], { type: 'audio/wav' });
}
