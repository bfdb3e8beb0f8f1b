/**
 * Real speech through the demo audio route, black-box: the speech-dev set (../shared/speech-dev, skipped with a
 * message where it is absent) and, always, turns rendered here by the offline voice and passed through a telephone
 * line (8 kHz, G.711 mu-law). Scored fairly (bench/speech_dev_lib.ts); the goal figures belong in the bench, so this
 * asserts only what must hold: no wrong value where the recogniser could reject, and the always-run turns understood.
 */
import { existsSync } from 'node:fs';
import t from 'tap';
import { writeWav } from '../../src/audio/index.js';
import { closeSpeechPool } from '../../src/speech/pool.js';
import { loadManifest, runConversation, scoreConversation } from '../../bench/speech_dev_lib.js';
import { startTestServer, api } from '../helpers/server.js';
import { phoneLine } from './helpers/phone_line.js';

// the shared folder sits beside the checkout (../shared), or beside the folder of worktrees
const SPEECH_DEV = process.env.SPEECH_DEV_DIR ?? ['../../../shared/speech-dev/', '../../../../shared/speech-dev/']
  .map((p) => new URL(p, import.meta.url).pathname).find((p) => existsSync(p)) ?? new URL('../../../shared/speech-dev/', import.meta.url).pathname;
const srv = await startTestServer();
t.teardown(async () => { await srv.close(); await closeSpeechPool(); });
const b = srv.baseUrl;

/** A caller turn in an offline voice through a phone line, as an 8 kHz WAV. */
const phoneTurn = async (text: string, voice: string) => Buffer.from(writeWav({ sampleRateHz: 8000, channels: [await phoneLine(text, voice)] }));

async function audioTurn(id: string, wav: Buffer) {
  const res = await fetch(`${b}/conversations/${id}/audio`, { method: 'POST', headers: { 'content-type': 'audio/wav' }, body: new Uint8Array(wav) });
  return { status: res.status, body: await res.json() as any };
}

t.test('turns in the offline voices through a phone line are understood; speech outside the grammar is rejected', async (t) => {
  const c = await api(b, 'POST', '/conversations', { body: {} });
  const name = await audioTurn(c.body.id, await phoneTurn('My name is Priya.', 'slt'));
  t.equal(name.status, 200, JSON.stringify(name.body));
  t.equal(name.body.caller.text, 'my name is priya');
  t.equal(name.body.agent.entities.customer_name, 'Priya');
  // the agent asks what they are looking for, then the budget: a turn's grammar is the asked field's (bench/README.md)
  const need = await audioTurn(c.body.id, await phoneTurn('I am looking for a two bedroom apartment.', 'kal16'));
  t.equal(need.status, 200, JSON.stringify(need.body));
  const budget = await audioTurn(c.body.id, await phoneTurn('About eighty lakh rupees.', 'kal16'));
  t.equal(budget.body.caller.text, 'about eighty lakh rupees', JSON.stringify(budget.body.caller));
  // a later turn (the first one is always answered with the disclosure): rejected, and asked again
  const off = await audioTurn(c.body.id, await phoneTurn('I had pasta for dinner yesterday.', 'rms'));
  t.equal(off.status, 200, JSON.stringify(off.body));
  t.equal(off.body.caller.text, '', 'rejected, not forced onto a phrase');
  t.match(off.body.caller.note, /offline grammar recogniser/);
  t.match(off.body.agent.text, /didn't catch that/);
});

t.test('speech-dev set through the demo audio route: no wrong value', { skip: existsSync(SPEECH_DEV) ? false : `no speech-dev set at ${SPEECH_DEV}` }, async (t) => {
  const today = new Date().toISOString().slice(0, 10);
  const scores = [];
  for (const conv of loadManifest(SPEECH_DEV)) {
    const o = await runConversation(b, SPEECH_DEV, conv);
    const s = scoreConversation(conv, o, today);
    t.comment(`${conv.scenario}: heard ${JSON.stringify(o.heard)} -> ${s.map((f) => `${f.field}:${f.outcome}`).join(' ')}`);
    scores.push(...s);
  }
  const wrong = scores.filter((s) => s.outcome === 'wrong' && !['escalation', 'ended'].includes(s.field));
  t.same(wrong, [], 'a field is either understood or left unfilled (asked again), never filled with a wrong value');
  t.comment(`fields right: ${scores.filter((s) => s.outcome === 'right').length} of ${scores.length}`);
});
