/**
 * The scripted dialog engine: one pure function from a turn request to the events of the agent's reply.
 * All state is derived from the request (history, extracted so far, context), so the engine is stateless and
 * behaves the same in-process and behind gRPC. Order of events: entities, tool calls, text sentences, then
 * escalate / end_call, or a `listen` hint naming what the agent now waits to hear.
 *
 * Disclosure first, always; then the caller is greeted from the context (customer_name, project_name) and the
 * qualify script is walked one question per turn, mixed-initiative: any turn may fill any field (stated outright),
 * the question just asked also takes a bare answer, and what the context already knows is confirmed instead of
 * asked (budget_tier) or taken as known (customer_name). At any point the caller may opt out, say it is a wrong
 * number, ask for a person, ask to be called back, decline, ask who is calling, ask to hear it again, say goodbye,
 * or ask a question (answered from the agent's knowledge, else noted for the team). After the last field the agent
 * asks whether there is anything else and answers until the caller is done.
 *
 * Honest confirmations: "booked" / "sent" only when the tool ran and succeeded (`results`, filled by the adapter
 * that runs tools, see scripted_dialog.ts); otherwise the agent notes the time or request for the team.
 */
import type { DialogEvent, DialogMessage, DialogTurnRequest, ListenHint } from '../adapters/types.js';
import { isBackchannel } from '../session/utterance.js';
import {
  extractBudgetAmount, extractIntent, extractName, extractStatedBudget, extractStatedIntent, extractStatedName,
  qualificationScore, wantsBrochure,
} from './extract.js';
import { intentsOf, isNonAnswer, NOTHING_ELSE_RE } from './intents.js';
import { lookupKnowledge, type KnowledgeEntry } from './knowledge.js';
import { parseSlot } from './slots.js';
import { callbackInstant } from './callback.js';
import { AFFIRMATIVE, NEGATIVE } from './yes_no.js';
import { isValidTimeZone, spokenSlot } from './zoned_time.js';

export const BROCHURE_CONFIRMATION = "I've sent you the brochure.";
export const BROCHURE_NOTED = "I've asked the team to send you the brochure.";
/** What the agent says to a request for a human when context.human_handoff is 'unavailable'. */
export const NO_HUMAN_TEXT = "I'm sorry, there is no colleague I can connect you with here. I'm happy to keep helping you myself.";
export const STILL_THERE = 'Are you still there?';
export const ANYTHING_ELSE = 'Is there anything else I can help you with?';
export const CALLBACK_WHEN = 'When would be a good time to call you back?';
const NOT_CAUGHT = "Sorry, I didn't catch that.";
export const OPT_OUT_TEXT = "I'm sorry for the trouble. I've noted that you don't want any more calls from us. Goodbye.";
export const NOT_KNOWN_TEXT = "I don't have that information right now. I've noted your question and the team will follow up with you.";

/** Whether each tool the turn fired succeeded (true), failed (false), or is unknown (absent: announced only). */
export type ToolResults = Partial<Record<string, boolean>>;

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
/**
 * Fields the call goes on without once their question failed twice: a caller's name is not what the call is for, and
 * not worth a colleague's time (the needs, budget and visit are, so those escalate as cannot_proceed)
 */
const FIELDS_TO_GO_ON_WITHOUT = new Set(['customer_name']);

type Got = { value?: string; spoken?: string; hint?: string };

const YES_NO_QUESTION = /^(?:are|is|do|does|did|have|has|can|could|would|will|should|shall|may|were|was)\b/i;
/** a bare hour as an answer to "when?": "eleven", "11", "eleven thirty" (read inside the calling hours) */
const BARE_HOUR = /^(?:at\s+)?(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})(?:\s+(?:thirty|fifteen|forty five)|:\d{2})?(?:\s+o'?clock)?[.!]?$/i;

const NAMES_A_DAY = /\b(?:today|tomorrow|tonight|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|\d{1,2}(?:st|nd|rd|th))\b/i;

/** `asked`: the caller answers "when?" (a bare hour counts, and a day given a turn ago); else stated outright. */
function slotOf(text: string, req: DialogTurnRequest, now: Date, asked = false, dayBefore?: string): Got {
  const tz = timeZoneOf(req);
  const said = asked && BARE_HOUR.test(text.trim()) && !/^at\b/i.test(text.trim()) ? `at ${text}` : text;
  let slot = parseSlot(said, now, tz);
  // "Tuesday", then "at eleven": the day the caller gave a turn ago with the time given now
  if (dayBefore && !NAMES_A_DAY.test(said) && parseSlot(dayBefore, now, tz).kind === 'missing_time') {
    const both = parseSlot(`${dayBefore} ${said}`, now, tz);
    if (both.kind === 'slot') slot = both;
  }
  if (slot.kind === 'slot') return { value: slot.iso, spoken: slot.spoken };
  if (slot.kind === 'missing_time') return { hint: 'I need a time as well as a day.' };
  if (slot.kind === 'missing_day') return { hint: 'I could not find that date.' };
  return {};
}

/** Fills `field` from the answer to its own question (bare answers count: "Anna Lee", "a villa", "50 lakh"). */
function extractField(field: string, question: string, text: string, req: DialogTurnRequest, now: Date, dayBefore?: string): Got {
  switch (field) {
    case 'customer_name': return { value: extractName(text) };
    case 'intent': return { value: parseSlot(text, now, 'UTC').kind === 'none' ? extractIntent(text) : undefined };
    case 'budget': return { value: extractBudgetAmount(text) };
    case 'scheduled_slot': return slotOf(text, req, now, true, dayBefore);
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
    case 'intent': { const v = extractStatedIntent(text); return { value: v && parseSlot(v, now, 'UTC').kind === 'none' ? v : undefined }; }
    case 'budget': return { value: extractStatedBudget(text) };
    // unasked, a visit names its day: "around five" or "I can talk at four" to another question books nothing
    case 'scheduled_slot': { const got = slotOf(text, req, now); return got.value && NAMES_A_DAY.test(text) ? got : {}; }
    default: return {};
  }
}

/**
 * How often `question` was asked and not answered: agent turns holding it, except those the caller met with a
 * backchannel, a question of their own or "say that again" (none of them is an attempt at an answer).
 */
function failedAttempts(history: DialogMessage[], question: string): { failed: number; asked: number } {
  let failed = 0, asked = 0;
  history.forEach((m, i) => {
    if (m.role !== 'agent' || !m.text.includes(question)) return;
    const reply = history[i + 1];
    if (reply?.role === 'caller' && isBackchannel(reply.text)) return;
    asked++;
    if (reply?.role === 'caller' && isNonAnswer(reply.text)) return;
    failed++;
  });
  return { failed, asked };
}

/** The question the agent puts for a step: a known budget tier is confirmed rather than asked (until refused). */
function questionOf(step: Step, req: DialogTurnRequest, vars: Record<string, string | number>, history: DialogMessage[]): string {
  const tier = req.context.budget_tier?.trim();
  if (step.field === 'budget' && tier) {
    const confirm = budgetConfirmation(tier);
    if (!history.some((m) => m.role === 'agent' && m.text.includes(confirm))) return confirm;
  }
  return fillTemplate(step.question, vars);
}
const budgetConfirmation = (tier: string) => `I have your budget as ${tier}. Is that still right?`;

export function planTurn(req: DialogTurnRequest, now: Date, results: ToolResults = {}): DialogEvent[] {
  const entities: DialogEvent[] = [];
  const tools: DialogEvent[] = [];
  const say: string[] = [];
  const extracted: Extracted = { ...req.extracted };
  const script: Step[] = req.agent.qualify_script;
  const fields = script.map((s) => s.field);
  const ctx = req.context;
  const vars = () => ({ ...ctx, ...extracted });
  const enabled = (tool: string) => req.tools.includes(tool);
  const knowledge = (req.agent as { knowledge?: KnowledgeEntry[] }).knowledge;
  const disclosure = fillTemplate(req.agent.disclosure_script, vars());
  // the call session speaks the disclosure itself (uninterruptible) before the first turn: it is not a question
  const history = req.history;
  const agentTurns = history.filter((m) => m.role === 'agent' && m.text !== disclosure).map((m) => m.text);
  const opening = agentTurns.length === 0;
  const disclosed = history.some((m) => m.role === 'agent' && m.text === disclosure);
  const caller = req.callerText.trim();
  // spoken and not understood (a grammar recogniser's rejection, a recognition past its deadline): not silence
  const unheard = req.unheard === true && !caller && !opening;
  const lastAgent = agentTurns.at(-1) ?? '';
  const noHuman = ctx.human_handoff === 'unavailable';

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
  const end = (text: string, outcome: string, reason: string) => {
    say.push(text);
    wrapUp(outcome);
    return finish({ type: 'end_call', reason });
  };

  // Disclosure first, always (also when the first turn held nothing the agent understood).
  if (opening && !disclosed) say.push(disclosure);
  if (opening) {
    const name = ctx.customer_name?.trim(), project = ctx.project_name?.trim();
    if (name && !isFilled(extracted, 'customer_name')) learn('customer_name', name);
    if ((name && !disclosure.includes(name)) || (project && !disclosure.includes(project))) {
      say.push(`Hi${name ? ` ${name}` : ''}${project ? `, I'm calling about ${project}` : ''}.`);
    }
  }

  // Silence: asked once whether the caller is still there, then the call ends.
  if (!caller && !opening && !unheard) {
    const checks = agentTurns.filter((t) => t.startsWith(STILL_THERE)).length;
    if ((history.at(-1)?.role === 'agent' && history.at(-1)!.text.startsWith(STILL_THERE)) || checks >= 3) {
      return end("I'll let you go for now. Goodbye.", 'no_response', 'no_response');
    }
    say.push(STILL_THERE);
  }

  const intents = intentsOf(caller);
  const has = (i: (typeof intents)[number]) => intents.includes(i);
  const name = () => (extracted.customer_name ? `, ${extracted.customer_name}` : '');

  if (has('opt_out')) return end(OPT_OUT_TEXT, 'opted_out', 'opted_out');
  if (has('wrong_number')) return end("I'm sorry to have bothered you. Goodbye.", 'wrong_number', 'wrong_number');
  if (has('human')) {
    say.push(noHuman ? NO_HUMAN_TEXT : "Of course. I'll connect you with a colleague now.");
    wrapUp('escalated');
    return finish({ type: 'escalate', reason: 'caller_requested_human' });
  }

  // A call-back: at the time asked (moved into the calling hours), else the agent asks when.
  const askedCallback = lastAgent.includes(CALLBACK_WHEN);
  if (has('callback') || askedCallback) {
    const at = callbackInstant(caller, now, timeZoneOf(req));
    if (at) {
      learn('callback_at', at.iso);
      return end(`Of course. I've noted ${at.spoken} for a call back${at.moved ? ', inside our calling hours' : ''}. Thank you${name()}. Goodbye.`, 'callback', 'callback_requested');
    }
    if (!askedCallback) {
      say.push(`Of course. ${CALLBACK_WHEN}`);
      return finish(listen({ asking: 'callback_at', open: [] }));
    }
    if (unheard && failedAttempts(history, CALLBACK_WHEN).failed < 2) {
      say.push(`${NOT_CAUGHT} ${CALLBACK_WHEN}`);
      return finish(listen({ asking: 'callback_at', open: [] }));
    }
    if (!has('decline') && !has('goodbye')) return end("No problem. I've noted that you'd like a call back, and the team will call you at a better time. Goodbye.", 'callback', 'callback_requested');
  }

  // given up before this turn (the last agent turn is the one being answered now), or with this turn's reply
  const failedTwice = (s: Step, upTo: DialogMessage[]) =>
    FIELDS_TO_GO_ON_WITHOUT.has(s.field) && failedAttempts(upTo, questionOf(s, req, vars(), upTo)).failed >= 2;
  const withReply: DialogMessage[] = caller ? [...history, { role: 'caller', text: caller }] : history;
  const allFilledBefore = script.every((s) => isFilled(extracted, s.field) || failedTwice(s, history.slice(0, -1)));
  const wrapping = allFilledBefore && lastAgent.includes(ANYTHING_ELSE);
  const backchannel = caller !== '' && isBackchannel(caller);
  // the CRM got the lead when the script completed: the wrap-up's goodbye only closes the call
  const close = (reason: string) => {
    say.push(`Thank you for your time${name()}. Goodbye.`);
    return finish({ type: 'end_call', reason });
  };
  if (wrapping && (NOTHING_ELSE_RE.test(caller) || has('goodbye') || has('decline') || (backchannel && !AFFIRMATIVE.test(caller)))) {
    return close('completed');
  }
  if (has('decline') || has('goodbye')) return end('I understand. Thank you for your time. Goodbye.', 'declined', 'caller_declined');

  // Requests and questions of the caller's own, answered before the script goes on.
  let handled = false;
  const sentBefore = agentTurns.some((t) => t.includes(BROCHURE_CONFIRMATION) || t.includes(BROCHURE_NOTED));
  if (caller && wantsBrochure(caller) && enabled('messaging_brochure') && !sentBefore) {
    const args: Record<string, string> = { template: 'brochure' };
    for (const k of ['customer_name', 'project_name', 'phone']) if (vars()[k] !== undefined) args[k] = String(vars()[k]);
    tools.push({ type: 'tool_call', tool: 'messaging_brochure', arguments: args });
    say.push(results.messaging_brochure === true ? BROCHURE_CONFIRMATION : BROCHURE_NOTED);
    handled = true;
  } else if (caller && wantsBrochure(caller) && sentBefore) handled = true;
  if (has('who_is_this')) {
    const project = ctx.project_name?.trim();
    say.push(`This is an AI assistant for our team${project ? `, about ${project}` : ''}. I'm here to understand what you are looking for and to help arrange a visit if you would like one.`);
    handled = true;
  }
  const openQuestions: string[] = [];
  if (has('question') && !(wantsBrochure(caller) && !/\?/.test(caller.replace(/brochure[^?]*\?/i, '')))) {
    const hit = lookupKnowledge(knowledge, caller);
    if (hit) say.push(hit.answer);
    else { say.push(NOT_KNOWN_TEXT); openQuestions.push(caller); }
    handled = true;
  }
  if (openQuestions.length) {
    const before = typeof extracted.open_questions === 'string' && extracted.open_questions ? `${extracted.open_questions} | ` : '';
    learn('open_questions', `${before}${openQuestions.join(' | ')}`);
  }

  // The step whose question the caller just heard (a reply cut before its question asked nothing).
  const heardVars = { ...ctx, ...req.extracted };
  const pending = script.filter((s) => !isFilled(extracted, s.field));
  const asked = opening ? undefined : pending.find((s) => lastAgent.includes(questionOf(s, req, heardVars, history.slice(0, -1)))
    || lastAgent.includes(fillTemplate(s.question, heardVars)));
  const learnedNow: string[] = [];
  const take = (field: string, got: Got) => {
    if (got.value === undefined) return;
    learn(field, got.value);
    learnedNow.push(field);
    if (field === 'scheduled_slot') {
      if (enabled('calendar_booking')) {
        const args: Record<string, string> = { start: got.value, time_zone: timeZoneOf(req), title: 'Site visit' };
        if (extracted.customer_name !== undefined) args.customer_name = String(extracted.customer_name);
        tools.push({ type: 'tool_call', tool: 'calendar_booking', arguments: args });
      }
      say.push(results.calendar_booking === true
        ? `You're booked for a site visit on ${got.spoken}.`
        : `I've noted ${got.spoken} as your preferred time, and the team will confirm the visit with you.`);
    }
  };
  let hint: string | undefined;
  const isRepeat = has('repeat');
  if (caller && !backchannel && !isRepeat && !has('who_is_this')) {
    // a name said outright replaces the one the context gave ("This is Ravi" to a call for Lee)
    const stated = extractStatedName(caller);
    if (stated && isFilled(extracted, 'customer_name') && extracted.customer_name === ctx.customer_name && stated !== ctx.customer_name) {
      take('customer_name', { value: stated });
    }
    for (const s of pending) if (!isFilled(extracted, s.field)) take(s.field, statedField(s.field, caller, req, now));
    // A bare answer belongs to the question asked, unless the caller was talking about something else; a need keeps
    // its own words beside a price or a name given with it ("a three bedroom flat under one crore")
    if (asked && !isFilled(extracted, asked.field) && (learnedNow.length === 0 || asked.field === 'intent') && !handled) {
      const question = questionOf(asked, req, heardVars, history.slice(0, -1));
      const tier = ctx.budget_tier?.trim();
      if (asked.field === 'budget' && tier && question === budgetConfirmation(tier)) {
        if (AFFIRMATIVE.test(caller)) take('budget', { value: extractBudgetAmount(tier) ?? tier });
      } else {
        const dayBefore = history.filter((m) => m.role === 'caller').at(-1)?.text;
        const got = extractField(asked.field, question, caller, req, now, dayBefore);
        hint = got.hint;
        take(asked.field, got);
      }
    }
  } else if (backchannel && asked && !(asked.field in FIELD_EXTRACTORS)) {
    // "okay" to "Would you like a site visit?" is a yes: the one place an acknowledgement answers
    const question = fillTemplate(asked.question, heardVars);
    if (YES_NO_QUESTION.test(question) && AFFIRMATIVE.test(caller)) take(asked.field, { value: 'yes' });
  } else if (backchannel && asked?.field === 'budget' && ctx.budget_tier && AFFIRMATIVE.test(caller)
    && lastAgent.includes(budgetConfirmation(ctx.budget_tier.trim()))) {
    take('budget', { value: extractBudgetAmount(ctx.budget_tier) ?? ctx.budget_tier });
  }

  const next = script.find((s) => !isFilled(extracted, s.field) && !failedTwice(s, withReply));
  if (!next) {
    if (allFilledBefore) {
      // after the script: answer what was asked, then ask again whether there is more (three times at most)
      const times = agentTurns.filter((t) => t.includes(ANYTHING_ELSE)).length;
      if ((!handled && !isRepeat && !unheard) || times >= 3) return close('completed');
      if (unheard) say.push(NOT_CAUGHT);
      say.push(ANYTHING_ELSE);
      return finish(listen(ANYTHING_ELSE_HINT));
    }
    say.push(`Thank you${name()}, that is everything I needed.`);
    say.push(ANYTHING_ELSE);
    wrapUp('completed');
    return finish(listen(ANYTHING_ELSE_HINT));
  }
  const question = questionOf(next, req, vars(), history);
  // Not answered: a backchannel or a non-answer only hears the question again; anything else is a failed attempt.
  if (!opening && (caller || unheard) && !backchannel && !handled && !isRepeat && learnedNow.length === 0 && next === asked) {
    const tried = failedAttempts(history, question);
    if (tried.failed >= 2 || tried.asked >= 4) {
      say.push(`I'm sorry, I'm having trouble with this.${noHuman ? ' There is no colleague I can connect you with here.' : ' Let me connect you with a colleague.'}`);
      wrapUp('escalated');
      return finish({ type: 'escalate', reason: `cannot_proceed:${next.field}` });
    }
    if (!(next.field === 'budget' && ctx.budget_tier && NEGATIVE.test(caller))) say.push(`${NOT_CAUGHT}${hint ? ` ${hint}` : ''}`);
  } else if (!opening && caller && next === asked && isRepeat) {
    const tried = failedAttempts(history, question);
    if (tried.asked >= 4) {
      say.push(`I'm sorry, I'm having trouble with this.${noHuman ? ' There is no colleague I can connect you with here.' : ' Let me connect you with a colleague.'}`);
      wrapUp('escalated');
      return finish({ type: 'escalate', reason: `cannot_proceed:${next.field}` });
    }
    say.push('Of course.');
  } else if (unheard) say.push(NOT_CAUGHT);
  say.push(question);
  const yesNo = YES_NO_QUESTION.test(question) && !(next.field in FIELD_EXTRACTORS) || question === budgetConfirmation(ctx.budget_tier?.trim() ?? '');
  return finish(listen({
    asking: next.field, ...(yesNo ? { yesNo: true } : {}),
    open: script.filter((s) => s !== next && !isFilled(extracted, s.field)).map((s) => s.field),
    ...(ctx.customer_name ? { names: [ctx.customer_name] } : {}),
  }));
}

const listen = (hint: ListenHint): DialogEvent => ({ type: 'listen', hint });
/**
 * "Is there anything else…?" is answered yes or no (or with an intent): a grammar recogniser listening for every
 * field here searched several times the phrases for answers nobody still owes (bench/README.md, calls_speech).
 */
const ANYTHING_ELSE_HINT: ListenHint = { open: [], yesNo: true };

/** Fields with an extractor of their own (custom fields take the answer as said). */
const FIELD_EXTRACTORS = { customer_name: true, intent: true, budget: true, scheduled_slot: true };

export { spokenSlot };
