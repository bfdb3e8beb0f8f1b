/**
 * The function tools a model gets: the call's enabled integrations (calendar_booking, crm_sync,
 * messaging_brochure) with JSON schemas of the arguments the tool runner and the integrations read, and the
 * built-ins every call has: record the extracted fields, hand off to a human, end the call, press keys. Field values are
 * checked here (a slot needs its UTC offset, a score is 0-100) and a refusal goes back to the model to correct.
 */
import type { DialogEvent, DialogTurnRequest } from '../../adapters/types.js';
import { extractBudgetAmount } from '../../dialog/extract.js';
import { isToolName } from '../../tools/types.js';
import type { ChatTool } from './client.js';
import { endedReasonOf, type EndedReason } from '../../calls/ended_reasons.js';

export const BUILTIN = { record: 'record_fields', human: 'transfer_to_human', end: 'end_call', keys: 'press_keys' } as const;
export const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?([+-]\d{2}:\d{2}|Z)$/;
const ESCALATION_REASONS = ['caller_requested_human', 'cannot_proceed', 'complaint'];
/** opted_out: the caller asked never to be called again (the platform puts the number on the DND list) */
/** the endings a model may choose: documented ended reasons (src/calls/ended_reasons.ts) */
const END_REASONS: EndedReason[] = ['completed', 'caller_declined', 'wrong_number', 'opted_out', 'callback_requested', 'no_response'];
const KNOWN_FIELDS = ['customer_name', 'intent', 'budget', 'scheduled_slot', 'qualification_score', 'callback_at', 'open_questions'];

const str = (description: string) => ({ type: 'string', description });
const fn = (name: string, description: string, properties: Record<string, unknown>, required: string[] = []): ChatTool =>
  ({ type: 'function', function: { name, description, parameters: { type: 'object', properties, required } } });

const INTEGRATIONS: Record<string, (tz: string) => ChatTool> = {
  calendar_booking: (tz) => fn('calendar_booking', 'Book the site visit or appointment the caller agreed to.', {
    start: str(`start of the slot, ISO 8601 with the UTC offset of ${tz}, e.g. 2026-09-01T10:00:00+05:30`),
    title: str('what the appointment is, e.g. "Site visit"'),
    customer_name: str("the caller's name"),
  }, ['start']),
  crm_sync: () => fn('crm_sync', "Update the caller's lead in the CRM with what was learned.", {
    outcome: { type: 'string', enum: ['in_progress', 'completed', 'declined', 'escalated'], description: 'where the conversation stands' },
    notes: str('one line worth keeping for the sales team'),
  }),
  messaging_brochure: () => fn('messaging_brochure', "Send the project's brochure to the caller on WhatsApp.", {
    customer_name: str("the caller's name"),
    project_name: str('the project the brochure is about'),
  }),
};

/** Tool definitions of a turn: the enabled integrations, then the built-ins. */
export function toolDefinitions(req: DialogTurnRequest, tz: string): ChatTool[] {
  const custom = req.agent.qualify_script.map((s) => s.field).filter((f) => !KNOWN_FIELDS.includes(f));
  const fields: Record<string, unknown> = {
    customer_name: str("the caller's name as they said it"),
    intent: str('what the caller is looking for, in a few words'),
    budget: str('the budget as an amount with its currency code, e.g. "8000000 INR"'),
    scheduled_slot: str(`the agreed time, ISO 8601 with the UTC offset of ${tz}`),
    qualification_score: { type: 'integer', minimum: 0, maximum: 100, description: 'how well the caller qualifies' },
    callback_at: str(`when the caller asked to be called back, ISO 8601 with the UTC offset of ${tz}, between 09:00 and 21:00 their time`),
    open_questions: str('questions you could not answer, joined by " | " (the team follows up)'),
  };
  for (const f of custom) fields[f] = str(`answer to the script's "${f}" question`);
  return [
    ...req.tools.filter((t) => INTEGRATIONS[t]).map((t) => INTEGRATIONS[t](tz)),
    fn(BUILTIN.record, 'Record fields the caller just gave. Call it whenever you learn one.', fields),
    fn(BUILTIN.human, 'Hand the call to a human colleague.', { reason: { type: 'string', enum: ESCALATION_REASONS } }),
    fn(BUILTIN.end, 'End the call, after saying goodbye.', { reason: { type: 'string', enum: END_REASONS } }),
    fn(BUILTIN.keys, 'Press keys on the phone, e.g. to choose an option of an automated phone menu ("press 1 for sales").',
      { digits: { type: 'string', pattern: '^[0-9*#]{1,32}$', description: 'the keys, in order: 0-9, * and #' } }, ['digits']),
  ];
}

export const isIntegration = (name: string, req: DialogTurnRequest): boolean => isToolName(name) && req.tools.includes(name);

/** A model's argument as the string the tool runner takes. */
const asString = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));

/** The model's fields, checked: what to record as entities, and what was refused and why. */
export function recordFields(args: Record<string, unknown>, req: DialogTurnRequest): { events: DialogEvent[]; result: Record<string, unknown> } {
  const allowed = new Set([...KNOWN_FIELDS, ...req.agent.qualify_script.map((s) => s.field)]);
  const events: DialogEvent[] = [];
  const recorded: Record<string, string | number> = {};
  const refused: Record<string, string> = {};
  for (const [key, raw] of Object.entries(args)) {
    if (raw === null || raw === undefined || raw === '') continue;
    if (!allowed.has(key)) { refused[key] = 'not a field of this call'; continue; }
    const value = normalise(key, raw);
    if (typeof value === 'object') { refused[key] = value.refused; continue; }
    recorded[key] = value;
    events.push({ type: 'entity', key, value });
  }
  return { events, result: { recorded, ...(Object.keys(refused).length ? { refused } : {}) } };
}

/** Longest field value kept: a model that pastes a paragraph into a field must not fill extracted_data with it. */
const MAX_FIELD_CHARS = 200;

function normalise(key: string, raw: unknown): string | number | { refused: string } {
  const text = asString(raw).trim();
  if (text.length > MAX_FIELD_CHARS) return { refused: `must be at most ${MAX_FIELD_CHARS} characters` };
  switch (key) {
    case 'budget': return extractBudgetAmount(text) ?? text;
    case 'scheduled_slot':
    case 'callback_at':
      return ISO_WITH_OFFSET.test(text) && !Number.isNaN(Date.parse(text)) ? text : { refused: 'must be ISO 8601 with a UTC offset, e.g. 2026-09-01T10:00:00+05:30' };
    case 'qualification_score': {
      const n = typeof raw === 'number' ? raw : Number(text);
      return Number.isFinite(n) && n >= 0 && n <= 100 ? Math.round(n) : { refused: 'must be a number from 0 to 100' };
    }
    default: return text;
  }
}

export function escalationReason(args: Record<string, unknown>): string {
  return ESCALATION_REASONS.includes(String(args.reason)) ? String(args.reason) : 'caller_requested_human';
}

export function endReason(args: Record<string, unknown>): EndedReason {
  const reason = endedReasonOf(String(args.reason)); // "not_interested" is caller_declined
  return END_REASONS.includes(reason) ? reason : 'completed';
}

/**
 * The arguments a tool runs with: the model's, completed from what the call knows (the booked slot, the caller's
 * name, the project, the phone, every extracted field for the CRM), so a model that leaves one out still gets a
 * full run.
 */
export function integrationArgs(tool: string, args: Record<string, unknown>, req: DialogTurnRequest,
  extracted: Record<string, string | number>, tz: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...req.context, ...extracted })) vars[k] = String(v);
  const given: Record<string, string> = {};
  for (const [k, v] of Object.entries(args)) if (v !== null && v !== undefined) given[k] = asString(v);
  const pick = (keys: string[]) => Object.fromEntries(keys.filter((k) => vars[k] !== undefined).map((k) => [k, vars[k]]));
  switch (tool) {
    case 'calendar_booking':
      return { title: 'Site visit', time_zone: tz, ...pick(['customer_name']), ...(vars.scheduled_slot ? { start: vars.scheduled_slot } : {}), ...given };
    case 'crm_sync': {
      const fields: Record<string, string> = {};
      for (const [k, v] of Object.entries(extracted)) fields[k] = String(v);
      return { outcome: 'in_progress', ...fields, ...given };
    }
    case 'messaging_brochure':
      return { template: 'brochure', ...pick(['customer_name', 'project_name', 'phone']), ...given };
    default: return given;
  }
}
