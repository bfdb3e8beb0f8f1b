/**
 * Money as people say it, in Indian and international styles: digits or words ("eighty lakh", "one point two
 * crore", "two hundred thousand", "one and a half million", "1.5 million", "80 lakh", "₹80L", "1,50,000",
 * "$400k"), read into one amount and an optional ISO 4217 currency.
 *
 * Normal form (what the engine stores as `budget`): the amount in whole units of the currency, plain digits with no
 * grouping (two decimals only when there is a fraction), then the currency code when one was said or implied:
 * "8000000 INR", "400000 USD", "1500000". Lakh and crore imply rupees (INR) when no other currency is named.
 */

export interface Amount {
  value: number;
  /** ISO 4217, when a symbol or word named it (or lakh/crore implied INR) */
  currency?: string;
  /** the words as said */
  raw: string;
  /** where `raw` starts in the text */
  at: number;
  /** a scale word or abbreviation was used (thousand, lakh, crore, million, billion, k, L, Cr, M, bn) */
  scaled: boolean;
  /** a size rather than money: a unit of area or length follows ("two thousand square feet", "five acres") */
  measure?: boolean;
}

const UNITS: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11,
  twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const SCALES: Record<string, number> = {
  thousand: 1e3, k: 1e3, lakh: 1e5, lakhs: 1e5, lac: 1e5, lacs: 1e5, l: 1e5, million: 1e6, millions: 1e6, mn: 1e6, m: 1e6,
  crore: 1e7, crores: 1e7, cr: 1e7, billion: 1e9, billions: 1e9, bn: 1e9,
};
const INDIAN_SCALES = new Set(['lakh', 'lakhs', 'lac', 'lacs', 'l', 'crore', 'crores', 'cr']);
/** abbreviations that count as a scale only right after digits ("80L", "1.2 Cr"), never after words */
const DIGIT_ONLY_SCALES = new Set(['k', 'l', 'm', 'mn', 'cr', 'bn']);
const SYMBOLS: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP', '₹': 'INR' };
const CURRENCY_WORDS: Record<string, string> = {
  dollar: 'USD', dollars: 'USD', usd: 'USD', rupee: 'INR', rupees: 'INR', inr: 'INR', rs: 'INR', euro: 'EUR', euros: 'EUR',
  eur: 'EUR', pound: 'GBP', pounds: 'GBP', gbp: 'GBP', aed: 'AED', dirham: 'AED', dirhams: 'AED',
};

/** units a size is given in: a number before one is no sum of money */
const MEASURE_WORDS = new Set(['square', 'sq', 'sqft', 'feet', 'foot', 'ft', 'metres', 'meters', 'metre', 'meter', 'acre', 'acres',
  'hectare', 'hectares', 'yards', 'gaj', 'bigha', 'bighas', 'guntha', 'km', 'kilometres', 'kilometers', 'miles']);

type Tok = { t: string; at: number; end: number };

function tokens(text: string): Tok[] {
  const out: Tok[] = [];
  // digits (with , grouping and a decimal part), currency symbols, words; "80L" splits into 80 + l
  for (const m of text.toLowerCase().matchAll(/\d[\d,]*(?:\.\d+)?|[$€£₹]|[a-z]+/g)) {
    out.push({ t: m[0].replace(/,(?=\d)/g, ''), at: m.index!, end: m.index! + m[0].length });
  }
  return out;
}

const isDigits = (t: string) => /^\d/.test(t);
const wordValue = (t: string) => UNITS[t] ?? TENS[t];

/** Every amount in the text, in order. */
export function findAmounts(text: string): Amount[] {
  const toks = tokens(text);
  const found: Amount[] = [];
  let i = 0;
  while (i < toks.length) {
    const start = toks[i].t;
    const startsNumber = isDigits(start) || wordValue(start) !== undefined
      || ((start === 'a' || start === 'half') && i + 1 < toks.length && (toks[i + 1].t === 'hundred' || SCALES[toks[i + 1].t] !== undefined && !DIGIT_ONLY_SCALES.has(toks[i + 1].t) || toks[i + 1].t === 'a'));
    if (!startsNumber) { i++; continue; }
    const r = readNumber(toks, i);
    if (!r) { i++; continue; }
    let currency: string | undefined;
    const before = toks[i - 1]?.t, after = toks[r.next]?.t;
    if (before && (SYMBOLS[before] || CURRENCY_WORDS[before])) currency = SYMBOLS[before] ?? CURRENCY_WORDS[before];
    else if (after && CURRENCY_WORDS[after]) currency = CURRENCY_WORDS[after];
    currency ??= r.indian ? 'INR' : undefined;
    const from = before && (SYMBOLS[before] || CURRENCY_WORDS[before]) ? toks[i - 1].at : toks[i].at;
    const to = after && CURRENCY_WORDS[after] && !(before && (SYMBOLS[before] || CURRENCY_WORDS[before])) ? toks[r.next].end : toks[r.next - 1].end;
    const measure = !currency && after !== undefined && MEASURE_WORDS.has(after);
    found.push({ value: r.value, ...(currency ? { currency } : {}), raw: text.slice(from, to), at: from, scaled: r.scaled, ...(measure ? { measure } : {}) });
    i = r.next;
  }
  return found;
}

/** Reads one number phrase from toks[i]; undefined when nothing numeric starts there. */
function readNumber(toks: Tok[], i: number): { value: number; next: number; scaled: boolean; indian: boolean } | undefined {
  let total = 0, current = 0, lastScale = Infinity, scaled = false, indian = false, any = false;
  let fraction: string | undefined; // digits after "point"
  let prev = ''; // the previous token's kind: 'digits' | 'unit' | 'tens' | 'hundred' | 'scale' | 'and' | 'point' | 'a' | 'half'
  let j = i;
  for (; j < toks.length; j++) {
    const t = toks[j].t;
    if (fraction !== undefined && UNITS[t] !== undefined && UNITS[t] < 10) { fraction += String(UNITS[t]); prev = 'unit'; continue; }
    if (fraction !== undefined) { current += Number(`0.${fraction || '0'}`); fraction = undefined; }
    if (isDigits(t)) {
      if (!(prev === '' || prev === 'scale' || prev === 'hundred' || prev === 'and')) break;
      current += Number(t); prev = 'digits'; any = true; continue;
    }
    const w = wordValue(t);
    if (w !== undefined) {
      const after = prev === '' || prev === 'scale' || prev === 'hundred' || prev === 'and' || (prev === 'tens' && w < 10);
      if (!after) break;
      current += w; prev = TENS[t] !== undefined ? 'tens' : 'unit'; any = true; continue;
    }
    if (t === 'point' && any && (prev === 'unit' || prev === 'tens' || prev === 'digits') && UNITS[toks[j + 1]?.t] !== undefined) { fraction = ''; prev = 'point'; continue; }
    if (t === 'hundred' && (any || prev === 'a')) { current = (current || 1) * 100; prev = 'hundred'; any = true; continue; }
    const s = SCALES[t];
    if (s !== undefined && (any || prev === 'a' || prev === 'half') && !(DIGIT_ONLY_SCALES.has(t) && prev !== 'digits')) {
      if (current === 0 && prev !== 'a' && prev !== 'half' && total > 0 && s > lastScale) total *= s; // "one thousand crore"
      else total += (current || 1) * s;
      current = 0; lastScale = s; scaled = true; indian ||= INDIAN_SCALES.has(t); prev = 'scale'; any = true; continue;
    }
    if (t === 'and' && (prev === 'hundred' || prev === 'scale' || (prev !== '' && toks[j + 1]?.t === 'a' && toks[j + 2]?.t === 'half'))) { prev = 'and'; continue; }
    if (t === 'a' && prev === 'half' && SCALES[toks[j + 1]?.t] !== undefined) continue; // "half a million"
    if (t === 'a' && (prev === '' || prev === 'and') && (toks[j + 1]?.t === 'hundred' || toks[j + 1]?.t === 'half' || SCALES[toks[j + 1]?.t] !== undefined)) {
      if (prev === '') current = 1;
      prev = 'a'; continue;
    }
    if (t === 'half' && (prev === 'a' || prev === '' || prev === 'and')) { current = (prev === 'a' && !any ? 0 : current) + 0.5; prev = 'half'; any = true; continue; }
    break;
  }
  if (fraction !== undefined) current += Number(`0.${fraction || '0'}`);
  // a trailing connector is not part of the number ("300 and")
  while (j > i && (toks[j - 1].t === 'and' || toks[j - 1].t === 'a' || toks[j - 1].t === 'point')) j--;
  if (!any || j === i) return undefined;
  return { value: total + current, next: j, scaled, indian };
}

/** "8000000 INR": whole units, no grouping, two decimals only for a fraction; the code when known. */
export function formatAmount(a: Pick<Amount, 'value' | 'currency'>): string {
  const whole = Math.abs(a.value - Math.round(a.value)) < 0.005;
  const digits = whole ? String(Math.round(a.value)) : a.value.toFixed(2);
  return a.currency ? `${digits} ${a.currency}` : digits;
}

/**
 * The budget in a caller's words: the first amount with a scale or a currency ("between 300 and 400 thousand"
 * -> 400 thousand), otherwise the first of at least 100 units; never a size ("a plot of two thousand square feet");
 * undefined when there is none.
 */
export function findBudget(text: string): Amount | undefined {
  const amounts = findAmounts(text).filter((a) => !a.measure);
  return amounts.find((a) => a.scaled || a.currency) ?? amounts.find((a) => a.value >= 100);
}
