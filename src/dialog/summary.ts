/**
 * The post-call summary built from what the dialog extracted (no model): who, what they want, their budget, the
 * next step and the questions left open, in a few plain sentences. A model-backed dialog may write its own
 * (DialogAdapter.summarize); this is the scripted engine's, and the fallback when the model gives none.
 */

export interface SummaryInput {
  extracted: Record<string, string | number>;
  /** how the call ended (ended_reason) */
  endedReason: string | null;
  /** the calendar booking ran and succeeded */
  booked: boolean;
  humanEscalation: boolean;
}

const NEXT_STEP: Record<string, string> = {
  opted_out: 'Asked not to be called again; the number is on the do-not-disturb list.',
  wrong_number: 'Wrong number; no follow-up.',
  caller_declined: 'Not interested; no follow-up.',
  no_response: 'No response on the line; try again later.',
  voicemail: 'Reached voicemail; try again later.',
};

export function summaryOf(s: SummaryInput): string {
  const x = s.extracted;
  const str = (k: string) => (x[k] !== undefined && String(x[k]).trim() !== '' ? String(x[k]).trim() : undefined);
  const who = str('customer_name') ?? 'The caller';
  const parts: string[] = [];
  const intent = str('intent');
  const budget = str('budget');
  parts.push(`${who}${intent ? ` is looking for ${intent}` : ' did not say what they are looking for'}${budget ? `, with a budget of ${budget}` : ''}.`);
  if (!budget && intent) parts.push('Budget not given.');
  const slot = str('scheduled_slot');
  const callback = str('callback_at');
  if (s.endedReason && NEXT_STEP[s.endedReason]) parts.push(`Next step: ${NEXT_STEP[s.endedReason]}`);
  else if (callback) parts.push(`Next step: call back at ${callback}.`);
  else if (slot) parts.push(`Next step: site visit at ${slot}${s.booked ? ' (booked).' : ' (preferred time; to be confirmed by the team).'}`);
  else if (s.humanEscalation) parts.push('Next step: a colleague follows up (the call was escalated).');
  else parts.push('Next step: the team follows up.');
  const open = str('open_questions');
  if (open) parts.push(`Open questions: ${open.split(' | ').join('; ')}.`.replace(/\?\./g, '?'));
  const custom = Object.entries(x).filter(([k]) => !KNOWN.has(k)).map(([k, v]) => `${k.replace(/_/g, ' ')}: ${v}`);
  if (custom.length) parts.push(`Also: ${custom.join('; ')}.`);
  return parts.join(' ');
}

const KNOWN = new Set(['customer_name', 'intent', 'budget', 'scheduled_slot', 'callback_at', 'open_questions', 'qualification_score']);
