/**
 * Every answer a simulated callee may give, in each of its voices through its phone line (the mu-law frames its
 * media socket sends), is heard by the offline ears with its question asked: a simulated call whose persona the ears
 * cannot hear hears "Sorry, I didn't catch that" twice and stores nothing for that field (a handoff, or without a
 * name), which is the ears' limit, not the call's (rms's "My name is Rahul" and "one point two million", heard
 * "billion", were such answers).
 */
import t from 'tap';
import { mulawDecode } from '../../src/audio/index.js';
import { CALLEE_VOICES, PERSONA_CHOICES, SimulatedCallee } from '../../src/adapters/sim/callee.js';
import { calleeFrames } from '../../src/adapters/sim/callee_voice.js';
import { recognise } from '../../src/speech/ears/recogniser.js';
import { closeSpeechPool } from '../../src/speech/pool.js';

t.teardown(closeSpeechPool);

const FIELDS = { name: 'customer_name', intent: 'intent', budget: 'budget', slot: 'scheduled_slot' } as const;
/** what the text must hold: the name and the budget as said (e2e_sim reads them so), the need's kind, the visit's day */
function mustHold(field: keyof typeof FIELDS, value: string): string {
  if (field === 'name') return `my name is ${value.toLowerCase()}`;
  if (field === 'budget') return value;
  if (field === 'intent') return value.split(' ').at(-1)!;
  return value.split(' ').find((word) => /day$|^tomorrow$/i.test(word))!.toLowerCase();
}

t.test('each persona answer, in each callee voice, is heard with its question asked', async (t) => {
  for (const voice of CALLEE_VOICES) {
    for (const field of Object.keys(FIELDS) as Array<keyof typeof FIELDS>) {
      for (const value of PERSONA_CHOICES[field]) {
        const callee = new SimulatedCallee('call_heard', 'cooperative');
        Object.assign(callee.persona, { [field]: value, voice });
        const [, , name, intent, budget, slot] = callee.lines();
        const line = { name, intent, budget, slot }[field];
        const frames = await calleeFrames('offline', line, voice);
        const pcm = mulawDecode(Uint8Array.from(frames.flatMap((f) => [...f])));
        const asked = FIELDS[field];
        const heard = await recognise(pcm, 8000, { asking: asked, open: Object.values(FIELDS).filter((f) => f !== asked) });
        t.match(heard.text, mustHold(field, value), `${voice}: "${line}" heard as "${heard.text || heard.path}"`);
      }
    }
  }
});
