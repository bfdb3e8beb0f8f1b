/** The dialog's listen hint reaches the reply stage's port (the session hands it to the speech-to-text stream). */
import t from 'tap';
import type { DialogAdapter, ListenHint, TextToSpeechAdapter } from '../../src/adapters/types.js';
import { runReply } from '../../src/session/reply.js';

t.test('a listen event is passed on once, after the reply text', async (t) => {
  const hint: ListenHint = { asking: 'budget', open: ['budget', 'scheduled_slot'], names: ['Meera'] };
  const dialog: DialogAdapter = { async *turn() { yield { type: 'text', text: 'What budget do you have in mind?' }; yield { type: 'listen', hint }; } };
  const tts: TextToSpeechAdapter = { async *synthesize(req) { yield new Int16Array(160 * req.text.length); } };
  const heard: ListenHint[] = [];
  const out = await runReply({
    dialog, tts, voice: 'kal16', language: 'en', now: () => performance.now(), enqueue() {}, entity() {},
    async tool(tool) { return { type: tool, status: '200_ok' }; }, listen: (h) => heard.push(h),
  }, { dialog: {} as never }, new AbortController().signal);
  t.same(out.spoken.map((s) => s.text), ['What budget do you have in mind?']);
  t.same(heard, [hint]);
});
