/**
 * The messages of the post-call summary request: one system message with the instructions and one user message
 * with the transcript and the fields. The transcript goes in as quoted text, not as chat turns, so the model writes
 * about the call rather than continuing it.
 */
import type { DialogSummaryRequest } from '../../adapters/types.js';
import type { ChatMessage } from './client.js';

/** The transcript lines sent at most (the end of a long call is kept: the next step is there). */
export const SUMMARY_MAX_LINES = 80;
/** A summary longer than this is cut at its last sentence before it (a model that ignored "a few sentences"). */
export const SUMMARY_MAX_CHARS = 1200;

const SPEAKER = { caller: 'Caller', agent: 'Agent', operator: 'Colleague', system: 'Note' } as const;

export function summaryMessages(req: DialogSummaryRequest): ChatMessage[] {
  const system = [
    `You write the note a sales team reads after a call made by an AI agent (${req.agent.role || 'calling agent'}).`,
    'In 2 to 4 plain sentences, in English: who the caller is, what they want, their budget, the next step, and any questions left open.',
    'Use only what the transcript and the fields say; write "not given" for what is missing; never invent facts.',
    'Say a visit is booked only if the fields\' summary says booked; otherwise it is a preferred time the team will confirm.',
    'No lists, no markdown, no greeting.',
  ].join('\n');
  const lines = req.history.filter((m) => m.text.trim()).slice(-SUMMARY_MAX_LINES).map((m) => `${SPEAKER[m.role]}: ${m.text.trim()}`);
  const fields = Object.entries(req.extracted).map(([k, v]) => `${k} = ${v}`);
  const context = Object.entries(req.context).filter(([k]) => k !== 'human_handoff').map(([k, v]) => `${k} = ${v}`);
  const user = [
    `How it ended: ${req.endedReason ?? 'not known'}.`,
    `Call context: ${context.length ? context.join('; ') : 'none'}.`,
    `Extracted fields: ${fields.length ? fields.join('; ') : 'none'}.`,
    `The fields' summary: ${req.fromFields}`,
    '',
    'Transcript:',
    ...(lines.length ? lines : ['(nothing was said)']),
  ].join('\n');
  return [{ role: 'system', content: system }, { role: 'user', content: user }];
}

/** The model's text as a stored summary: one paragraph, at most SUMMARY_MAX_CHARS (cut at a sentence end). */
export function tidySummary(text: string): string {
  const flat = text.replace(/[*#_`]+/g, '').replace(/\s+/g, ' ').trim();
  if (flat.length <= SUMMARY_MAX_CHARS) return flat;
  const cut = flat.slice(0, SUMMARY_MAX_CHARS);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('? '), cut.lastIndexOf('! '));
  return end > 0 ? cut.slice(0, end + 1) : `${cut.trimEnd()}…`;
}
