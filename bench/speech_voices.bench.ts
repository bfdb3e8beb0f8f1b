/**
 * The grammar recogniser on voices other than the offline voice's own: the bench lines (bench/speech_lines.ts)
 * rendered by espeak-ng (six voices) and festival (its diphone voice) when those Debian programs are installed, and
 * by the four Flite voices always, each through a phone line (bench/phone_line.ts). Every answer line (and every answer said with hesitations, "my name is,
 * um, Rahul", or in everyday words, "fifty lakh only") is heard with the question of its field asked and with nothing
 * asked (several answers in a sentence); the everyday lines, which no grammar holds, with budget asked and with
 * nothing asked. Per voice family: answers heard exactly, heard as something else, rejected; everyday lines accepted
 * (each a wrong value); names no list holds ("my name is Harpreet"), with the name asked and with nothing asked,
 * accepted (each a wrong name).
 *
 *   npm run bench -- speech_voices
 */
import { recognise } from '../src/speech/ears/recogniser.js';
import { trimToSpeech } from '../src/speech/ears/trim.js';
import { loadFlite } from '../src/speech/voice/flite.js';
import { benchVoices } from './phone_line.js';
import { asRead, HESITANT, IN_GRAMMAR, OUT_OF_GRAMMAR, PHRASED, UNLISTED_NAMES, WITH_PLACE } from './speech_lines.js';

const FIELDS = ['customer_name', 'intent', 'budget', 'scheduled_slot'];

/** the field an answer line answers (the order of bench/speech_lines.ts); intents and several answers: budget asked */
function fieldOf(text: string): string {
  const other = [...HESITANT, ...PHRASED, ...WITH_PLACE.map(([t]) => [t, 'intent'] as const)].find(([t]) => t === text);
  if (other) return other[1];
  const i = IN_GRAMMAR.indexOf(text);
  return i < 5 ? 'customer_name' : i < 9 ? 'intent' : i < 14 ? 'budget' : i < 18 ? 'scheduled_slot' : 'budget';
}

type Line = { family: string; text: string; oog: boolean; kind?: 'hesitant' | 'phrased' | 'placed' | 'unlisted'; heardAs?: string; pcm: Int16Array };
const lines: Line[] = [];
const all = [...IN_GRAMMAR.map((text) => ({ text, oog: false })), ...HESITANT.map(([text]) => ({ text, oog: false, kind: 'hesitant' as const })),
  ...PHRASED.map(([text]) => ({ text, oog: false, kind: 'phrased' as const })),
  ...WITH_PLACE.map(([text, heardAs]) => ({ text, heardAs, oog: false, kind: 'placed' as const })),
  ...OUT_OF_GRAMMAR.map((text) => ({ text, oog: true })), ...UNLISTED_NAMES.map((text) => ({ text, oog: true, kind: 'unlisted' as const }))];
await loadFlite();
for (const v of benchVoices()) for (const l of all) lines.push({ family: v.family, ...l, pcm: v.say(l.text) });

// load both decoders and their grammars first: the several-answers grammar takes about a second to build
await recognise(new Int16Array(0), 8000, undefined);
await recognise(new Int16Array(0), 8000, { asking: 'budget', open: FIELDS });
const rows = [];
type Counts = { right: number; wrong: number; rejected: number; answers: number };
const none = (): Counts => ({ right: 0, wrong: 0, rejected: 0, answers: 0 });
for (const asked of [true, false]) {
  const byFamily = new Map<string, Counts & { oogAccepted: number; oog: number; hesitant: Counts; phrased: Counts; placed: Counts; unlisted: string[] }>();
  let cpuMs = 0, seconds = 0;
  for (const l of lines) {
    const family = byFamily.get(l.family) ?? { ...none(), oogAccepted: 0, oog: 0, hesitant: none(), phrased: none(), placed: none(), unlisted: [] };
    byFamily.set(l.family, family);
    const hint = asked ? { asking: l.kind === 'unlisted' ? 'customer_name' : l.oog ? 'budget' : fieldOf(l.text), open: FIELDS } : undefined;
    const c = process.cpuUsage();
    const speech = trimToSpeech(l.pcm, 8000);
    const h = await recognise(speech, 8000, hint);
    const used = process.cpuUsage(c);
    cpuMs += (used.user + used.system) / 1000;
    seconds += speech.length / 8000;
    if (l.kind === 'unlisted') { family.unlisted.push(h.rejected ? '' : h.text); continue; }
    if (l.oog) { family.oog++; if (!h.rejected) family.oogAccepted++; continue; }
    const s = l.kind ? family[l.kind] : family;
    s.answers++;
    if (h.rejected) s.rejected++;
    else if (asRead(h.text) === asRead(l.heardAs ?? l.text)) s.right++;
    else s.wrong++;
  }
  for (const [family, s] of byFamily) rows.push({ grammar: asked ? 'its field asked (one answer)' : 'nothing asked (several answers)', voices: family,
    'answers heard right': `${s.right}/${s.answers}`, wrong: s.wrong, rejected: s.rejected, 'everyday lines accepted': `${s.oogAccepted}/${s.oog}`,
    'hesitant answers right / wrong / rejected': `${s.hesitant.right}/${s.hesitant.answers} / ${s.hesitant.wrong} / ${s.hesitant.rejected}`,
    'everyday phrasings right / wrong / rejected': `${s.phrased.right}/${s.phrased.answers} / ${s.phrased.wrong} / ${s.phrased.rejected}`,
    'needs with a place right / wrong / rejected': `${s.placed.right}/${s.placed.answers} / ${s.placed.wrong} / ${s.placed.rejected}`,
    'names no list holds accepted': `${s.unlisted.filter(Boolean).length}/${s.unlisted.length}` });
  for (const [family, s] of byFamily) if (s.unlisted.some(Boolean)) console.log(`${asked ? 'asked' : 'nothing asked'}, ${family}: names no list holds heard as`, s.unlisted.filter(Boolean));
  rows.push({ grammar: asked ? 'its field asked (one answer)' : 'nothing asked (several answers)', voices: 'CPU ms per speech s', 'answers heard right': String(Math.round(cpuMs / seconds)) });
}
console.log('bench lines through a phone line, by voice family ("right" ignores fillers such as "um", "please" and "a"):');
console.table(rows);
