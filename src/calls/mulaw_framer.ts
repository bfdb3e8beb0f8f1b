/** PCM16 chunks of any size at 8 kHz -> 20 ms mu-law frames (160 bytes); the tail is padded with silence on flush. */
import { mulawEncode } from '../audio/index.js';

const FRAME = 160;

export class MulawFramer {
  #carry = new Int16Array(0);

  push(pcm: Int16Array): Uint8Array[] {
    const all = new Int16Array(this.#carry.length + pcm.length);
    all.set(this.#carry); all.set(pcm, this.#carry.length);
    const whole = all.length - (all.length % FRAME);
    this.#carry = all.slice(whole);
    const bytes = mulawEncode(all.subarray(0, whole));
    const out: Uint8Array[] = [];
    for (let o = 0; o < whole; o += FRAME) out.push(bytes.slice(o, o + FRAME));
    return out;
  }

  flush(): Uint8Array[] {
    if (!this.#carry.length) return [];
    const pad = new Int16Array(FRAME);
    pad.set(this.#carry);
    this.#carry = new Int16Array(0);
    return [mulawEncode(pad)];
  }
}
