/**
 * Agent audio of any chunk size -> 20 ms mu-law frames (160 bytes at 8 kHz) for the carrier. PCM16 chunks are
 * encoded; mu-law chunks (a provider that renders telephone audio itself) are only cut. The tail is padded with
 * silence on flush.
 */
import { ByteFrameSplitter, PHONE_FRAME_SAMPLES } from '../audio/framing.js';
import { MULAW_SILENCE, mulawEncode } from '../audio/g711.js'; // not the barrel: the browser bundle imports this file

export class MulawFramer {
  readonly #bytes = new ByteFrameSplitter({ sampleRateHz: 8000 });
  #carry = new Int16Array(0);

  push(chunk: Int16Array | Uint8Array): Uint8Array[] {
    if (chunk instanceof Uint8Array) return this.#bytes.write(chunk);
    const all = new Int16Array(this.#carry.length + chunk.length);
    all.set(this.#carry); all.set(chunk, this.#carry.length);
    const whole = all.length - (all.length % PHONE_FRAME_SAMPLES);
    this.#carry = all.slice(whole);
    return this.#bytes.write(mulawEncode(all.subarray(0, whole)));
  }

  flush(): Uint8Array[] {
    const out: Uint8Array[] = [];
    if (this.#carry.length) {
      const pad = new Int16Array(PHONE_FRAME_SAMPLES);
      pad.set(this.#carry);
      this.#carry = new Int16Array(0);
      out.push(...this.#bytes.write(mulawEncode(pad)));
    }
    out.push(...this.#bytes.flush(MULAW_SILENCE));
    return out;
  }
}
