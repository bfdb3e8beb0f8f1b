/**
 * AudioWorklet that plays the agent's side of a browser call (PlayoutBuffer) and reports the marks whose audio has
 * played. Messages in: {audio: Float32Array at 8 kHz}, {mark: name}, {clear: true}; out: {marks: string[]},
 * {playedMs}.
 */
import { PlayoutBuffer } from './playout_buffer';

declare abstract class AudioWorkletProcessor {
  readonly port: MessagePort;
  abstract process(inputs: Float32Array[][], outputs: Float32Array[][]): boolean;
}
declare function registerProcessor(name: string, ctor: new () => AudioWorkletProcessor): void;
declare const sampleRate: number;

class CallPlayer extends AudioWorkletProcessor {
  #buffer = new PlayoutBuffer();
  #reported = 0;

  constructor() {
    super();
    this.port.onmessage = (ev: MessageEvent<{ audio?: Float32Array; mark?: string; clear?: boolean }>) => {
      const m = ev.data;
      if (m.audio) this.#buffer.push(m.audio);
      else if (m.mark !== undefined) this.#buffer.mark(m.mark);
      else if (m.clear) this.port.postMessage({ marks: this.#buffer.clear() });
    };
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const out = outputs[0]?.[0];
    if (!out) return true;
    const marks = this.#buffer.render(out, sampleRate);
    for (let c = 1; c < outputs[0].length; c++) outputs[0][c].set(out);
    if (marks.length) this.port.postMessage({ marks });
    // a few reports a second are enough for a meter
    if (this.#buffer.playedMs - this.#reported >= 100) { this.#reported = this.#buffer.playedMs; this.port.postMessage({ playedMs: this.#reported }); }
    return true;
  }
}

registerProcessor('voicecall-call-player', CallPlayer);
