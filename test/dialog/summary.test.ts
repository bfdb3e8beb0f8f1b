/** Issue 33, a post-call summary built from the extracted fields: who, what they want, budget, next step, open questions. */
import t from 'tap';
import { summaryOf } from '../../src/dialog/summary.js';

const base = { endedReason: 'completed', booked: false, humanEscalation: false };

t.test('who, what, budget, the next step as it stands, open questions', async (t) => {
  const s = summaryOf({ ...base, booked: true, extracted: {
    customer_name: 'Anna Lee', intent: 'a two bedroom flat', budget: '8000000 INR', scheduled_slot: '2026-11-24T15:00:00+05:30',
    open_questions: 'Is there parking? | Do you allow pets?', qualification_score: 100 } });
  t.equal(s, 'Anna Lee is looking for a two bedroom flat, with a budget of 8000000 INR. Next step: site visit at 2026-11-24T15:00:00+05:30 (booked). '
    + 'Open questions: Is there parking?; Do you allow pets?');
  t.match(summaryOf({ ...base, extracted: { customer_name: 'Anna', scheduled_slot: '2026-11-24T15:00:00+05:30' } }), /preferred time; to be confirmed by the team/, 'not booked: not said booked');
});

t.test('the next step follows how the call ended', async (t) => {
  t.match(summaryOf({ ...base, endedReason: 'opted_out', extracted: {} }), /^The caller did not say .*do-not-disturb list/);
  t.match(summaryOf({ ...base, endedReason: 'callback_requested', extracted: { callback_at: '2026-11-23T17:00:00+05:30' } }), /call back at 2026-11-23T17:00/);
  t.match(summaryOf({ ...base, endedReason: 'escalated', humanEscalation: true, extracted: { intent: 'a villa' } }), /Budget not given\. Next step: a colleague follows up/);
  t.match(summaryOf({ ...base, extracted: { move_in: 'spring' } }), /Also: move in: spring\./, 'custom fields are kept');
});
