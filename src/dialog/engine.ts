/**
 * The scripted dialog engine: one pure function from a turn request to the events of the agent's reply.
 * All state is derived from the request (history, extracted so far), so the engine is stateless and behaves the
 * same in-process and behind gRPC. Order of events: entities, tool calls, text sentences, then escalate/end_call.
 *
 * Script: disclosure first, then each qualify step {field, question} until its field is extracted. Any turn may
 * answer any pending step: what the caller states outright ("my name is…", "looking for…", an amount with a unit or
 * currency, a day and time) fills its field whatever was asked, and the question the agent just asked also takes a
 * bare answer ("Anna Lee"). A backchannel ("okay", "uh huh", src/audio/backchannel.ts) is never an answer: the
 * pending question is asked again and the repeat does not count as an attempt (except that an affirmative one
 * answers a yes/no question). A step that fails twice (the question asked twice, each time followed by something
 * that was not an answer) escalates as 'cannot_proceed'. Asking for a human escalates at once; declining or
 * saying goodbye ends the call politely. Tools fire when enabled:
 * calendar_booking once a slot is agreed, messaging_brochure when the caller asks for details, crm_sync whenever
 * the call is wrapped up (end or escalation). With context.human_handoff 'unavailable' (a public demo no operator
 * can take) the agent says there is no colleague rather than promising one.
 */
import type { DialogEvent, DialogTurnRequest } from '../adapters/types.js';
import { isBackchannel } from '../session/utterance.js';
import type { DialogMessage } from '../adapters/types.js';
import {
  declines, extractBudgetAmount, extractIntent, extractName, extractStatedBudget, extractStatedIntent, extractStatedName,
  qualificationScore, wantsBrochure, wantsHuman,
} from './extract.js';
import { parseSlot } from './slots.js';
import { isValidTimeZone } from './zoned_time.js';

export const BROCHURE_CONFIRMATION = "I'll send you the brochure right away.";
/** What the agent says to a request for a human when context.human_handoff is 'unavailable'. */
export const NO_HUMAN_TEXT = "I'm sorry, there is no colleague I can connect you with here. I'm happy to keep helping you myself.";

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

type Got = { value?: string; spoken?: string; hint?: string };

const YES_NO_QUESTION = /^(?:are|is|do|does|did|have|has|can|could|would|will|should|shall|may|were|was)\b/i;
const AFFIRMATIVE = /^(?:yes|yeah|yep|yup|sure|ok|okay|alright|all right|right|correct|fine|of course|definitely)\b/i;
const NEGATIVE = /^(?:no|nope|nah|not really|not yet|never)\b/i;

function slotOf(text: string, req: DialogTurnRequest, now: Date): Got {
  const slot = parseSlot(text, now, timeZoneOf(req));
  if (slot.kind === 'slot') return { value: slot.iso, spoken: slot.spoken };
  if (slot.kind === 'missing_time') return { hint: 'I need a time as well as a day.' };
  if (slot.kind === 'missing_day') return { hint: 'I could not find that date.' };
  return {};
}

/** Fills `field` from the answer to its own question (bare answers count: "Anna Lee", "a villa", "50 lakh"). */
function extractField(field: string, question: string, text: string, req: DialogTurnRequest, now: Date): Got {
  switch (field) {
    case 'customer_name': return { value: extractName(text) };
    case 'intent': return { value: extractIntent(text) };
    case 'budget': return { value: extractBudgetAmount(text) };
    case 'scheduled_slot': return slotOf(text, req, now);
    default: {
      const v = text.trim().replace(/[.!?]+$/, '');
      if (YES_NO_QUESTION.test(question.trim())) {
        if (AFFIRMATIVE.test(v)) return { value: 'yes' };
        if (NEGATIVE.test(v)) return { value: 'no' };
      }
      return { value: v || undefined };
    }
  }
}

/** Fills a known field from what the caller stated outright, whatever was asked; custom fields never. */
function statedField(field: string, text: string, req: DialogTurnRequest, now: Date): Got {
  switch (field) {
    case 'customer_name': return { value: extractStatedName(text) };
    case 'intent': return { value: extractStatedIntent(text) };
    case 'budget': return { value: extractStatedBudget(text) };
    case 'scheduled_slot': { const got = slotOf(text, req, now); return got.value ? got : {}; }
    default: return {};
  }
}

/**
 * How often `question` was asked and not answered: agent turns holding it, except those the caller met with a
 * backchannel (an acknowledgement is not an attempt at an answer).
 */
function failedAttempts(history: DialogMessage[], question: string): number {
  let n = 0;
  history.forEach((m, i) => {
    if (m.role !== 'agent' || !m.text.includes(question)) return;
    const reply = history[i + 1];
    if (reply?.role === 'caller' && isBackchannel(reply.text)) return;
    n++;
  });
  return n;
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
  const disclosure = fillTemplate(req.agent.disclosure_script, vars());
  // the call session speaks the disclosure itself (uninterruptible) before the first turn: it is not a question
  const agentTurns = req.history.filter((m) => m.role === 'agent' && m.text !== disclosure).map((m) => m.text);
  const opening = agentTurns.length === 0;
  const disclosed = req.history.some((m) => m.role === 'agent' && m.text === disclosure);
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

  if (opening && !disclosed) say.push(disclosure);

  // No human can take over (a public demo without operators): say so, never promise a colleague.
  const noHuman = req.context.human_handoff === 'unavailable';
  if (caller && wantsHuman(caller)) {
    say.push(noHuman ? NO_HUMAN_TEXT : "Of course. I'll connect you with a colleague now.");
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

  // The step whose question the caller just heard (a reply cut before its question asked nothing).
  const heardVars = { ...req.context, ...req.extracted };
  const lastAgent = agentTurns.at(-1) ?? '';
  const pending = script.filter((s) => !isFilled(extracted, s.field));
  const asked = opening ? undefined : pending.find((s) => lastAgent.includes(fillTemplate(s.question, heardVars)));
  const backchannel = caller !== '' && isBackchannel(caller);
  const learnedNow: string[] = [];
  const take = (field: string, got: Got) => {
    if (got.value === undefined) return;
    learn(field, got.value);
    learnedNow.push(field);
    if (field === 'scheduled_slot') {
      say.push(`Great, I have you down for ${got.spoken}.`);
      if (enabled('calendar_booking')) {
        const args: Record<string, string> = { start: got.value, time_zone: timeZoneOf(req), title: 'Site visit' };
        if (extracted.customer_name !== undefined) args.customer_name = String(extracted.customer_name);
        tools.push({ type: 'tool_call', tool: 'calendar_booking', arguments: args });
      }
    }
  };
  let hint: string | undefined;
  if (caller && !backchannel) {
    for (const s of pending) take(s.field, statedField(s.field, caller, req, now));
    // A bare answer belongs to the question asked, unless the caller was talking about something else.
    if (asked && !isFilled(extracted, asked.field) && learnedNow.length === 0) {
      const got = extractField(asked.field, fillTemplate(asked.question, heardVars), caller, req, now);
      hint = got.hint;
      take(asked.field, got);
    }
  } else if (backchannel && asked && !(asked.field in FIELD_EXTRACTORS)) {
    // "okay" to "Would you like a site visit?" is a yes: the one place an acknowledgement answers
    const question = fillTemplate(asked.question, heardVars);
    if (YES_NO_QUESTION.test(question) && AFFIRMATIVE.test(caller)) take(asked.field, { value: 'yes' });
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
  // Not answered: a backchannel only hears the question again; anything else is a failed attempt.
  if (!opening && !backchannel && learnedNow.length === 0 && next === asked) {
    if (failedAttempts(req.history, question) >= 2) {
      say.push(`I'm sorry, I'm having trouble with this.${noHuman ? ' There is no colleague I can connect you with here.' : ' Let me connect you with a colleague.'}`);
      wrapUp('escalated');
      return finish({ type: 'escalate', reason: `cannot_proceed:${next.field}` });
    }
    say.push(caller ? `Sorry, I didn't catch that.${hint ? ` ${hint}` : ''}` : 'Are you still there?');
  }
  say.push(question);
  return finish();
}

/** Fields with an extractor of their own (custom fields take the answer as said). */
const FIELD_EXTRACTORS = { customer_name: true, intent: true, budget: true, scheduled_slot: true };
