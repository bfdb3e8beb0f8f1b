/**
 * The post-call summary: who, what they want, their budget, the next step and the questions left open, in a few
 * plain sentences. summaryOf builds it from what the dialog extracted (no model): the scripted engine's. A
 * model-backed dialog writes its own (DialogAdapter.summarize) through writeSummary, which falls back to
 * summaryOf when the model fails, times out or writes nothing, and says which one it stored.
 */
import { withDeadline } from '../adapters/deadline.js';
import type { DialogAdapter, DialogSummaryRequest } from '../adapters/types.js';

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

/** Who wrote a stored summary: the dialog model, or summaryOf from the extracted fields. */
export type SummarySource = 'model' | 'fields';

/** The longest wait for a model's summary by default (SUMMARY_TIMEOUT_MS), ms. */
export const SUMMARY_TIMEOUT_MS = 5000;

/**
 * The model's summary when the dialog writes one within `timeoutMs`, else the fields' (a failure is told to
 * onError, never thrown: the call's end must not wait on or fail with the model).
 */
export async function writeSummary(dialog: Pick<DialogAdapter, 'summarize'>, s: SummaryInput & Omit<DialogSummaryRequest, 'fromFields' | 'endedReason' | 'extracted'>,
  o: { timeoutMs?: number; onError?: (err: unknown) => void } = {}): Promise<{ summary: string; source: SummarySource }> {
  const fromFields = summaryOf(s);
  if (!dialog.summarize) return { summary: fromFields, source: 'fields' };
  const timeoutMs = o.timeoutMs ?? SUMMARY_TIMEOUT_MS;
  const req: DialogSummaryRequest = { agent: s.agent, context: s.context, history: s.history, extracted: s.extracted, endedReason: s.endedReason, fromFields };
  try {
    const text = (await withDeadline('dialog', { timeoutMs }, (signal) => dialog.summarize!(req, { signal, timeoutMs }))).trim();
    if (text) return { summary: text, source: 'model' };
    o.onError?.(new Error('the dialog model wrote an empty summary'));
  } catch (err) {
    o.onError?.(err);
  }
  return { summary: fromFields, source: 'fields' };
}
