/**
 * Teens and tens: budgets said with "sixteen" and with "sixty" (bench/speech_lines.ts, TEENS_AND_TENS), which to the
 * acoustic model differ in one phone, in every installed voice through a phone line (bench/phone_line.ts), clean and
 * with pink noise at 20 and 12 dB SNR, heard as on a call asked the budget. Scored by value, as the dialog stores
 * it (`extractBudgetAmount`): "five to ninety thousand" for "up to ninety thousand" is the budget said (a range keeps
 * its upper end); a wrong budget is mostly a teen heard for its ten or the other way, a value six times off.
 *
 *   npm run bench -- speech_numbers
 */
import { extractBudgetAmount } from '../src/dialog/extract.js';
import { recognise } from '../src/speech/ears/recogniser.js';
import { trimToSpeech } from '../src/speech/ears/trim.js';
import { loadFlite } from '../src/speech/voice/flite.js';
import { benchVoices, withPinkNoise } from './phone_line.js';
import { TEENS_AND_TENS } from './speech_lines.js';

await loadFlite();
const voices = benchVoices();
const hint = { asking: 'budget', open: ['customer_name', 'intent', 'budget', 'scheduled_slot'] };
await recognise(new Int16Array(0), 8000, hint);

const rows = [];
let seed = 1;
let cpuMs = 0, seconds = 0;
for (const snr of [Infinity, 20, 12]) {
  const byFamily = new Map<string, { lines: number; right: number; wrong: number; other: number; rejected: number }>();
  for (const v of voices) {
    const f = byFamily.get(v.family) ?? { lines: 0, right: 0, wrong: 0, other: 0, rejected: 0 };
    byFamily.set(v.family, f);
    for (const text of TEENS_AND_TENS) {
      const speech = trimToSpeech(withPinkNoise(v.say(text), snr, seed++), 8000);
      const c = process.cpuUsage();
      const h = await recognise(speech, 8000, hint);
      const used = process.cpuUsage(c);
      cpuMs += (used.user + used.system) / 1000;
      seconds += speech.length / 8000;
      const value = extractBudgetAmount(h.text);
      f.lines++;
      if (h.rejected) f.rejected++;
      else if (value === undefined) f.other++;
      else if (value === extractBudgetAmount(text)) f.right++;
      else f.wrong++;
    }
  }
  for (const [family, f] of byFamily) {
    rows.push({ 'pink noise SNR dB': snr === Infinity ? 'none' : snr, voices: family, lines: f.lines, 'budget right': f.right,
      'budget wrong': f.wrong, 'heard as another answer': f.other, rejected: f.rejected });
  }
}
console.log('budgets with teens and tens, asked the budget, scored by the value the dialog stores:');
console.table(rows);
console.log(`CPU ms per speech s: ${Math.round(cpuMs / seconds)}`);
