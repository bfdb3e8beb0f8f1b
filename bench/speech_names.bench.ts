/**
 * First names through a phone line in every bench voice (bench/phone_line.ts), with the name asked and with nothing
 * asked: names on the list, names a longer list would add (measured 2026-12-01, not kept), names no list holds,
 * everyday lines (a name taken from them is a wrong value) and, with nothing asked, the other answers (so more names
 * do not crowd them out). Per group and voice family: heard right, wrong, rejected; and CPU per speech second.
 *
 *   npm run bench -- speech_names
 */
import { recognise } from '../src/speech/ears/recogniser.js';
import { trimToSpeech } from '../src/speech/ears/trim.js';
import { loadFlite } from '../src/speech/voice/flite.js';
import { benchVoices } from './phone_line.js';
import { asRead, IN_GRAMMAR, OUT_OF_GRAMMAR, UNLISTED_NAMES } from './speech_lines.js';

const FIELDS = ['customer_name', 'intent', 'budget', 'scheduled_slot'];
const FIRST_LISTED = ['Rahul', 'Anjali', 'Vikram', 'Sunil', 'Deepak', 'Pooja', 'Arjun', 'Meera', 'Karan', 'Fatima', 'Priya', 'Neha', 'Arun', 'John', 'Michael', 'Sarah', 'David', 'Emma', 'Rohan', 'Kiran'];
const ADDED = ['Jennifer', 'Robert', 'William', 'Elizabeth', 'Jessica', 'Matthew', 'Andrew', 'Kevin', 'Thomas', 'Richard', 'Susan', 'Lisa', 'Charlotte', 'Oliver',
  'Priyanka', 'Sunita', 'Rakesh', 'Vivek', 'Rohit', 'Sandeep', 'Pradeep', 'Naveen', 'Shweta', 'Nisha', 'Preeti', 'Ananya', 'Aditi', 'Abhishek', 'Akash', 'Manoj', 'Nitin', 'Vishal', 'Yogesh', 'Ashok', 'Rajiv', 'Mahesh', 'Dinesh', 'Sameer'];
const UNLISTED = ['Gurpreet', 'Dwayne', 'Marisol', 'Bogdan'];
const T = [(n: string) => `My name is ${n}.`, (n: string) => `This is ${n}.`, (n: string) => `${n} here.`, (n: string) => `I am ${n}.`, (n: string) => `${n}.`];
type L = { group: string; text: string; expect?: string };
const all: L[] = [...FIRST_LISTED.map((n, i) => ({ group: 'listed first', text: T[i % 5](n), expect: T[i % 5](n) })),
  ...ADDED.map((n, i) => ({ group: 'a longer list would add', text: T[i % 5](n), expect: T[i % 5](n) })),
  ...[...UNLISTED_NAMES, ...UNLISTED.map((n, i) => T[i % 4](n))].map((text) => ({ group: 'no list holds', text })),
  ...OUT_OF_GRAMMAR.map((text) => ({ group: 'everyday', text })),
  ...IN_GRAMMAR.slice(5).map((text) => ({ group: 'other answers', text, expect: text }))];
await loadFlite();
const lines = benchVoices().flatMap((v) => all.map((l) => ({ ...l, family: v.family, pcm: v.say(l.text) })));
await recognise(new Int16Array(0), 8000, undefined);
await recognise(new Int16Array(0), 8000, { asking: 'customer_name', open: FIELDS });
const rows: Record<string, string | number>[] = [];
for (const asked of [true, false]) {
  const by = new Map<string, { right: number; wrong: number; rejected: number; n: number }>();
  let cpu = 0, secs = 0;
  const wrongs: string[] = [];
  for (const l of lines) {
    if (l.group === 'other answers' && asked) continue;
    const key = `${l.group} | ${l.family}`;
    const c = by.get(key) ?? { right: 0, wrong: 0, rejected: 0, n: 0 }; by.set(key, c);
    const speech = trimToSpeech(l.pcm, 8000);
    const u = process.cpuUsage();
    const h = await recognise(speech, 8000, asked ? { asking: 'customer_name', open: FIELDS } : undefined);
    const d = process.cpuUsage(u); cpu += (d.user + d.system) / 1000; secs += speech.length / 8000;
    c.n++;
    if (h.rejected) c.rejected++;
    else if (l.expect && asRead(h.text) === asRead(l.expect)) c.right++;
    else { c.wrong++; if (l.family !== 'espeak-ng') wrongs.push(`${l.family}: "${l.text}" -> "${h.text}"`); }
  }
  for (const [k, c] of [...by].sort()) rows.push({ asked: asked ? 'name' : 'nothing', 'group | voices': k, right: c.right, wrong: c.wrong, rejected: c.rejected, of: c.n });
  rows.push({ asked: asked ? 'name' : 'nothing', 'group | voices': 'CPU ms per speech s', right: Math.round(cpu / secs) });
  console.log(asked ? 'name asked' : 'nothing asked', 'wrong:', wrongs.join('\n  '));
}
console.table(rows);
