/** Whatever the caller says, the scripted engine stays well-formed and always reaches an end. */
import t from 'tap';
import fc from 'fast-check';
import { planTurn } from '../../src/dialog/index.js';
import type { DialogEvent, DialogMessage } from '../../src/adapters/types.js';
import { DEFAULT_AGENT } from '../../src/repos/agents.js';

const phrases = fc.constantFrom('', 'My name is Anna Lee.', 'Ravi', 'I am looking for a flat.', 'a villa near the sea', '50 lakh',
  'about $300,000', 'tomorrow at 10 am', 'next Tuesday', 'Friday at 3 pm', 'hmm', 'what?', 'send me the brochure', 'uh huh',
  'I could not say', '31 June at 9 am', 'yes');
const callerLine = fc.oneof(phrases, fc.string({ maxLength: 40 }));

t.test('any conversation ends (escalation or end_call) within the worst-case number of turns, well-formed', async () => {
  const script = DEFAULT_AGENT.qualify_script;
  // opening + per question two failed tries, or four askings when the caller asks back ("what?", "who is this?"),
  // + the wrap-up question and its answer, + three "are you still there?" checks at most
  const maxTurns = 1 + script.length * 4 + 2 + 3;
  fc.assert(fc.property(fc.array(callerLine, { minLength: maxTurns, maxLength: maxTurns }),
    fc.constantFrom('UTC', 'Asia/Kolkata', 'America/New_York', 'Pacific/Auckland'), (lines, timeZone) => {
      const history: DialogMessage[] = [];
      const extracted: Record<string, string | number> = {};
      let last: DialogEvent | undefined;
      for (let turn = 0; turn < maxTurns; turn++) {
        const callerText = turn === 0 ? '' : lines[turn];
        const events = planTurn({ callId: 'c', agent: DEFAULT_AGENT, context: {}, tools: ['calendar_booking', 'crm_sync', 'messaging_brochure'],
          history: [...history], callerText, extracted: { ...extracted }, timeZone }, new Date('2026-11-22T18:00:00Z'));
        const text = events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text).join(' ');
        if (turn === 0 && !text.startsWith(DEFAULT_AGENT.disclosure_script)) throw new Error('disclosure not first');
        if (!text) throw new Error(`turn ${turn} says nothing`);
        for (const e of events) {
          if (e.type === 'entity') {
            extracted[e.key] = e.value;
            if (e.key === 'qualification_score' && !(Number.isInteger(e.value) && Number(e.value) >= 0 && Number(e.value) <= 100)) throw new Error(`score ${e.value}`);
            if (e.key === 'scheduled_slot' && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/.test(String(e.value))) throw new Error(`slot ${e.value}`);
          }
        }
        if (callerText) history.push({ role: 'caller', text: callerText });
        history.push({ role: 'agent', text });
        last = events.at(-1);
        if (last?.type === 'end_call' || last?.type === 'escalate') return;
      }
      throw new Error(`no end after ${maxTurns} turns: ${JSON.stringify(last)}`);
    }), { numRuns: 300, seed: 7 });
});
