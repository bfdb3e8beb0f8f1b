/**
 * Per-frame level measurement for the speech detector.
 *
 * Band-limit first: a 2nd-order high-pass at 200 Hz removes DC offset and most brown/rumble noise (whose power
 * sits below 100 Hz) while keeping voiced speech; at 16 kHz a 3.6 kHz low-pass drops the upper band, where white
 * noise has half its power and telephone speech has almost none.
 * Then measure the level robustly against clicks: the frame is cut into four 5 ms blocks and the level is the
 * mean power of the two quietest blocks, so a click (1-6 ms) touching one or two blocks barely moves it, while
 * voiced speech (pitch period 2.5-10 ms) fills every block.
 */

/** Biquad coefficients [b0, b1, b2, a1, a2] (a0 normalised to 1). */
export type Biquad = readonly [number, number, number, number, number];

function butterworth(kind: 'hp' | 'lp', cutoffHz: number, sampleRateHz: number): Biquad {
  const w = (2 * Math.PI * cutoffHz) / sampleRateHz;
  const alpha = Math.sin(w) / Math.SQRT2; // Q = 1/sqrt(2)
  const cos = Math.cos(w);
  const a0 = 1 + alpha;
  const b1 = kind === 'hp' ? -(1 + cos) : 1 - cos;
  const b0 = kind === 'hp' ? (1 + cos) / 2 : (1 - cos) / 2;
  return [b0 / a0, b1 / a0, b0 / a0, (-2 * cos) / a0, (1 - alpha) / a0];
}

export const HIGH_PASS_HZ = 200;
export const LOW_PASS_HZ = 3600;
const FILTERS = new Map<number, { hp: Biquad; lp: Biquad | null }>();

export function filtersFor(sampleRateHz: number): { hp: Biquad; lp: Biquad | null } {
  let f = FILTERS.get(sampleRateHz);
  if (!f) {
    f = {
      hp: butterworth('hp', HIGH_PASS_HZ, sampleRateHz),
      lp: sampleRateHz > 2 * LOW_PASS_HZ * 1.1 ? butterworth('lp', LOW_PASS_HZ, sampleRateHz) : null,
    };
    FILTERS.set(sampleRateHz, f);
  }
  return f;
}

/** Filter memory, 4 numbers per biquad: x[n-1], x[n-2], y[n-1], y[n-2]. Plain array so the state serialises. */
export type FilterMemory = number[];

export function newFilterMemory(): FilterMemory { return [0, 0, 0, 0, 0, 0, 0, 0]; }

const BLOCKS = 4;
const blockPower = new Float64Array(BLOCKS);
/** Power floor so log10 never sees 0: -120 dBFS. */
const MIN_POWER = 1e-12;

/**
 * Level of one frame in dBFS (0 dBFS = full-scale square wave), after filtering, robust to clicks.
 * `mem` is updated in place. `frame` may be a view into a larger buffer.
 */
export interface FrameLevels {
  /** Click-robust level (mean of the two quietest 5 ms blocks), dBFS: used for speech decisions. */
  robustDb: number;
  /** Plain mean-power level, dBFS: used for the noise floor, because the robust level dips far below the real
   *  floor on sparse noise (e.g. white noise under a DC offset in mu-law, where few samples cross a code step). */
  meanDb: number;
}

export function frameLevels(frame: Int16Array, sampleRateHz: number, mem: FilterMemory, out: FrameLevels): FrameLevels {
  const { hp, lp } = filtersFor(sampleRateHz);
  const h0 = hp[0], h1 = hp[1], h2 = hp[2], ha1 = hp[3], ha2 = hp[4];
  let hx1 = mem[0], hx2 = mem[1], hy1 = mem[2], hy2 = mem[3], lx1 = mem[4], lx2 = mem[5], ly1 = mem[6], ly2 = mem[7];
  const blockLen = frame.length / BLOCKS;
  const power = blockPower; // scratch, fully overwritten per frame
  for (let b = 0, i = 0; b < BLOCKS; b++) {
    let acc = 0;
    for (let end = i + blockLen; i < end; i++) {
      const x = frame[i] / 32768;
      let y = h0 * x + h1 * hx1 + h2 * hx2 - ha1 * hy1 - ha2 * hy2;
      hx2 = hx1; hx1 = x; hy2 = hy1; hy1 = y;
      if (lp) {
        const z = lp[0] * y + lp[1] * lx1 + lp[2] * lx2 - lp[3] * ly1 - lp[4] * ly2;
        lx2 = lx1; lx1 = y; ly2 = ly1; ly1 = z;
        y = z;
      }
      acc += y * y;
    }
    power[b] = acc / blockLen;
  }
  mem[0] = hx1; mem[1] = hx2; mem[2] = hy1; mem[3] = hy2;
  mem[4] = lx1; mem[5] = lx2; mem[6] = ly1; mem[7] = ly2;
  const mean = (power[0] + power[1] + power[2] + power[3]) / 4;
  // Two smallest of four without sorting (no allocation, no comparator calls).
  const lo1 = Math.min(power[0], power[1]), hi1 = Math.max(power[0], power[1]);
  const lo2 = Math.min(power[2], power[3]), hi2 = Math.max(power[2], power[3]);
  const twoLowest = Math.min(lo1, lo2) + Math.min(Math.max(lo1, lo2), Math.min(hi1, hi2));
  // 10*log10(mean square), the corpus's convention: a full-scale sine reads -3 dBFS.
  out.robustDb = 10 * Math.log10(Math.max(MIN_POWER, twoLowest / 2));
  out.meanDb = 10 * Math.log10(Math.max(MIN_POWER, mean));
  return out;
}
