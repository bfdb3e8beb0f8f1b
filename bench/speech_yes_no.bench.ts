/**
 * Replies to a yes/no question ("Would you like to visit the site?", "Is there anything else?") through a phone line
 * in every bench voice, heard under the yes/no hint and read as the dialog reads them (dialog/yes_no.ts; "nothing
 * else" is the wrap-up's no): right, wrong (the other answer, or words that are neither), rejected (asked again).
 * Everyday lines and real human speech heard under the same hint must be rejected.
 *
 *   npm run bench -- speech_yes_no
 */
import { AFFIRMATIVE, NEGATIVE } from '../src/dialog/yes_no.js';
import { NOTHING_ELSE_RE } from '../src/dialog/intents.js';
import { recognise } from '../src/speech/ears/recogniser.js';
import { loadFlite } from '../src/speech/voice/flite.js';
import { humanBookTurns } from './audio_corpus_lib.js';
import { benchVoices } from './phone_line.js';
import { OUT_OF_GRAMMAR, YES_NO_REPLIES } from './speech_lines.js';

await loadFlite();
const hint = { open: [], yesNo: true };
const readAs = (text: string) => (AFFIRMATIVE.test(text) ? 'yes' : NEGATIVE.test(text) || NOTHING_ELSE_RE.test(text) ? 'no' : 'neither');
const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };

const rows: Array<{ family: string; voice: string; right: number; wrong: number; rejected: number; 'CPU ms per audio s': number; misses: string }> = [];
let everyday = 0, everydayHeard = 0;
const everydayAs: string[] = [];
for (const v of benchVoices()) {
  let right = 0, wrong = 0, rejected = 0, ms = 0, secs = 0;
  const misses: string[] = [];
  for (const [line, want] of YES_NO_REPLIES) {
    const pcm = v.say(line);
    const t0 = cpu();
    const heard = await recognise(pcm, 8000, hint);
    ms += cpu() - t0; secs += pcm.length / 8000;
    if (heard.rejected) { rejected++; misses.push(`${line} rejected`); } else if (readAs(heard.text) === want) right++;
    else { wrong++; misses.push(`${line} as "${heard.text}"`); }
  }
  for (const line of OUT_OF_GRAMMAR) {
    everyday++;
    const heard = await recognise(v.say(line), 8000, hint);
    if (!heard.rejected) { everydayHeard++; everydayAs.push(`${v.voice}: "${line}" as "${heard.text}"`); }
  }
  rows.push({ family: v.family, voice: v.voice, right, wrong, rejected, 'CPU ms per audio s': Math.round(ms / secs), misses: misses.join('; ') });
}
console.log(`yes/no replies (${YES_NO_REPLIES.length} per voice), heard under the yes/no hint and read as the dialog reads them`);
console.table(rows);
const sum = (k: 'right' | 'wrong' | 'rejected') => rows.reduce((a, r) => a + r[k], 0);
console.log(`all voices: right ${sum('right')}, wrong ${sum('wrong')}, rejected ${sum('rejected')} of ${YES_NO_REPLIES.length * rows.length}`);
console.log(`everyday lines taken for an answer: ${everydayHeard}/${everyday}`, everydayAs);

const human = humanBookTurns();
const humanAs: string[] = [];
for (const { pcm } of human) { const heard = await recognise(pcm, 8000, hint); if (!heard.rejected) humanAs.push(heard.text); }
console.log(`real human book sentences taken for an answer: ${humanAs.length}/${human.length}`, humanAs);
