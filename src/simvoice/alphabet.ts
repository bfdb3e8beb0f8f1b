/**
 * SimVoice symbol alphabet: 64 symbols, each a pair of simultaneous tones (one from group A, one from group B),
 * like DTMF with 8x8 tones. Text is lowercase-folded; a SHIFT symbol marks the next letter as a capital.
 * Word spaces are not symbols: they are short pauses (see codec.ts), as in speech.
 *
 * Tones sit on multiples of 100 Hz so that a 10 ms Goertzel block (80 samples at 8 kHz) holds whole cycles of
 * every tone and of the voiced harmonics (100..400 Hz): the bins are orthogonal and do not leak into each other.
 */

/** group A: 600..1300 Hz, group B: 1500..2200 Hz — inside the 300-3400 Hz telephone band, clear of the harmonics */
export const TONES_A_HZ = [600, 700, 800, 900, 1000, 1100, 1200, 1300] as const;
export const TONES_B_HZ = [1500, 1600, 1700, 1800, 1900, 2000, 2100, 2200] as const;

/** control symbols */
export const SYM_START = 0; // begins an utterance (lets the decoder ignore anything that is not SimVoice)
export const SYM_END = 1; // ends an utterance
export const SYM_REPEAT = 2; // "same character again" so doubled letters stay two symbols
export const SYM_SHIFT = 3; // next letter is upper case

const CHARS = "abcdefghijklmnopqrstuvwxyz0123456789.,?!'-:/+@&$%\";()#*=_";
const FIRST_CHAR_SYMBOL = 4;

const charToSymbol = new Map<string, number>();
for (let i = 0; i < CHARS.length; i++) charToSymbol.set(CHARS[i], FIRST_CHAR_SYMBOL + i);

export const SYMBOL_COUNT = TONES_A_HZ.length * TONES_B_HZ.length;
if (FIRST_CHAR_SYMBOL + CHARS.length > SYMBOL_COUNT) throw new Error('SimVoice alphabet exceeds 64 symbols');

export function symbolTones(symbol: number): [number, number] {
  return [TONES_A_HZ[symbol >> 3], TONES_B_HZ[symbol & 7]];
}

export function symbolFromToneIndexes(a: number, b: number): number {
  return (a << 3) | b;
}

/** Character symbol for a (lowercase) character, or undefined when it cannot be carried. */
export function symbolOfChar(ch: string): number | undefined {
  return charToSymbol.get(ch);
}

export function charOfSymbol(symbol: number): string | undefined {
  const i = symbol - FIRST_CHAR_SYMBOL;
  return i >= 0 && i < CHARS.length ? CHARS[i] : undefined;
}

/**
 * Splits text into words of symbols. Letters outside the alphabet (accents, emoji) are dropped; the text is
 * whitespace-normalised. Doubled characters become char + REPEAT.
 */
export function textToWordSymbols(text: string): number[][] {
  const words: number[][] = [];
  for (const word of text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').split(/\s+/)) {
    const symbols: number[] = [];
    let prev = -1;
    for (const raw of word) {
      const lower = raw.toLowerCase();
      const sym = symbolOfChar(lower);
      if (sym === undefined) continue;
      if (lower !== raw) { symbols.push(SYM_SHIFT); prev = SYM_SHIFT; }
      if (sym === prev) { symbols.push(SYM_REPEAT); prev = SYM_REPEAT; } else { symbols.push(sym); prev = sym; }
    }
    if (symbols.length) words.push(symbols);
  }
  return words;
}
