/**
 * Raw PCM16 LE bytes from a network stream to Int16Array chunks. A chunk boundary may split a sample, so the odd
 * byte is carried into the next chunk; copies keep each chunk's samples aligned whatever the source offset.
 */
export class Pcm16Bytes {
  #carry: number | undefined;

  push(bytes: Uint8Array): Int16Array {
    const total = bytes.length + (this.#carry === undefined ? 0 : 1);
    const out = new Int16Array(total >> 1);
    let i = 0, o = 0;
    if (this.#carry !== undefined && bytes.length) {
      out[o++] = (this.#carry | (bytes[0] << 8)) << 16 >> 16;
      i = 1;
      this.#carry = undefined;
    }
    for (; i + 1 < bytes.length; i += 2) out[o++] = (bytes[i] | (bytes[i + 1] << 8)) << 16 >> 16;
    if (i < bytes.length) this.#carry = bytes[i];
    return out;
  }
}

/** The PCM rate to ask a provider for: the wanted one when it renders it, else the closest one above it (resampled here). */
export function providerRate(wantedHz: number, offered: readonly number[]): number {
  if (offered.includes(wantedHz)) return wantedHz;
  return offered.find((r) => r > wantedHz) ?? offered[offered.length - 1];
}
