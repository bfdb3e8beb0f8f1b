/**
 * The scripted dialog engine: one pure function from a turn request to the events of the agent's reply.
 * All state is derived from the request (history, extracted so far), so the engine is stateless and behaves the
 * same in-process and behind gRPC. Order of events: entities, tool calls, text sentences, then escalate/end_call.
 *
 * Script: disclosure first, then each qualify step {field, question} until its field is extracted. A step that
 * fails twice (the question already asked twice without an answer) escalates as 'cannot_proceed'. Asking for a
 * human escalates at once; declining or saying goodbye ends the call politely. Tools fire when enabled:
 * calendar_booking once a slot is agreed, messaging_brochure when the caller asks for details, crm_sync whenever
 * the call is wrapped up (end or escalation).
 */
import type { DialogEvent, DialogTurnRequest } from '../adapters/types.js';
import { declines, extractBudget, extractIntent, extractName, qualificationScore, wantsBrochure, wantsHuman } from './extract.js';
import { parseSlot } from './slots.js';
import { isValidTimeZone } from './zoned_time.js';

export const BROCHURE_CONFIRMATION = "I'll send you the brochure right away.";

type Extracted = Record<string, string | number>;
interface Step { field: string; question: string }

/** Fills {{key}} / {key} placeholders of scripts from the extracted data and the call context. */
export function fillTemplate(text: string, vars: Record<string, string | number>): string {
  return text.replace(/\{\{?\s*(\w+)\s*\}?\}/g, (_, k: string) => (vars[k] !== undefined ? String(vars[k]) : ''))
    .replace(/\s+([,.!?])/g, '$1').replace(/\s{2,}/g, ' ').trim();
}

function timeZoneOf(req: DialogTurnRequest): string {
  const tz = req.timeZone ?? req.context.time_zone ?? req.context.timezone;
  return tz && isValidTimeZone(tz) ? tz : 'UTC';
}

const isFilled = (x: Extracted, field: string) => x[field] !== undefined && x[field] !== '';

/** Tries to fill `field` from the caller's words. */
function extractField(field: string, text: string, req: DialogTurnRequest, now: Date): { value?: string; spoken?: string; hint?: string } {
  switch (field) {
    case 'customer_name': return { value: extractName(text) };
    case 'intent': return { value: extractIntent(text) };
    case 'budget': return { value: extractBudget(text) };
    case 'scheduled_slot': {
      const slot = parseSlot(text, now, timeZoneOf(req));
      if (slot.kind === 'slot') return { value: slot.iso, spoken: slot.spoken };
      if (slot.kind === 'missing_time') return { hint: 'I need a time as well as a day.' };
      if (slot.kind === 'missing_day') return { hint: 'I could not find that date.' };
      return {};
    }
    default: {
      const v = text.trim().replace(/[.!?]+$/, '');
      return { value: v || undefined };
    }
  }
}

export function planTurn(req: DialogTurnRequest, now: Date): DialogEvent[] {
  const entities: DialogEvent[] = [];
  const tools: DialogEvent[] = [];
  const say: string[] = [];
  const extracted: Extracted = { ...req.extracted };
  const script: Step[] = req.agent.qualify_script;
  const fields = script.map((s) => s.field);
  const vars = () => ({ ...req.context, ...extracted });
  const enabled = (tool: string) => req.tools.includes(tool);
  const agentTurns = req.history.filter((m) => m.role === 'agent').map((m) => m.text);
  const opening = agentTurns.length === 0;
  const caller = req.callerText.trim();

  const learn = (key: string, value: string | number) => {
    extracted[key] = value;
    entities.push({ type: 'entity', key, value });
  };
  const wrapUp = (outcome: string): void => {
    learn('qualification_score', qualificationScore(fields, extracted));
    if (enabled('crm_sync')) {
      const args: Record<string, string> = { outcome };
      for (const [k, v] of Object.entries(extracted)) args[k] = String(v);
      tools.push({ type: 'tool_call', tool: 'crm_sync', arguments: args });
    }
  };
  const finish = (last?: DialogEvent): DialogEvent[] => [
    ...entities, ...tools, ...say.filter(Boolean).map((text): DialogEvent => ({ type: 'text', text })), ...(last ? [last] : []),
  ];

  if (opening) say.push(fillTemplate(req.agent.disclosure_script, vars()));

  if (caller && wantsHuman(caller)) {
    say.push("Of course. I'll connect you with a colleague now.");
    wrapUp('escalated');
    return finish({ type: 'escalate', reason: 'caller_requested_human' });
  }
  if (caller && declines(caller)) {
    say.push('I understand. Thank you for your time. Goodbye.');
    wrapUp('declined');
    return finish({ type: 'end_call', reason: 'caller_declined' });
  }
  if (caller && wantsBrochure(caller) && enabled('messaging_brochure') && !agentTurns.some((t) => t.includes(BROCHURE_CONFIRMATION))) {
    const args: Record<string, string> = { template: 'brochure' };
    for (const k of ['customer_name', 'project_name', 'phone']) if (vars()[k] !== undefined) args[k] = String(vars()[k]);
    tools.push({ type: 'tool_call', tool: 'messaging_brochure', arguments: args });
    say.push(BROCHURE_CONFIRMATION);
  }

  const current = script.find((s) => !isFilled(extracted, s.field));
  let hint: string | undefined;
  if (current && !opening && caller) {
    const got = extractField(current.field, caller, req, now);
    hint = got.hint;
    if (got.value !== undefined) {
      learn(current.field, got.value);
      if (current.field === 'scheduled_slot') {
        say.push(`Great, I have you down for ${got.spoken}.`);
        if (enabled('calendar_booking')) {
          const args: Record<string, string> = { start: got.value, time_zone: timeZoneOf(req), title: 'Site visit' };
          if (extracted.customer_name !== undefined) args.customer_name = String(extracted.customer_name);
          tools.push({ type: 'tool_call', tool: 'calendar_booking', arguments: args });
        }
      }
    }
  }

  const next = script.find((s) => !isFilled(extracted, s.field));
  if (!next) {
    wrapUp('completed');
    const name = extracted.customer_name ? `, ${extracted.customer_name}` : '';
    const slot = typeof extracted.scheduled_slot === 'string' && enabled('calendar_booking') ? ' You will get a confirmation of your visit.' : '';
    say.push(`Thank you${name}, that is everything I needed.${slot} Goodbye.`);
    return finish({ type: 'end_call', reason: 'completed' });
  }
  const question = fillTemplate(next.question, vars());
  if (!opening && next === current) {
    const attempts = agentTurns.filter((t) => t.includes(question)).length;
    if (attempts >= 2) {
      say.push("I'm sorry, I'm having trouble with this. Let me connect you with a colleague.");
      wrapUp('escalated');
      return finish({ type: 'escalate', reason: `cannot_proceed:${next.field}` });
    }
    say.push(caller ? `Sorry, I didn't catch that.${hint ? ` ${hint}` : ''}` : 'Are you still there?');
  }
  say.push(question);
  return finish();
}
