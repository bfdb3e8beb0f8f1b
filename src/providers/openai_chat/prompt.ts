/**
 * The messages of a turn: one system prompt (role, disclosure, qualify script as text or steps, call context,
 * language, fields known so far, the clock), then the conversation. Roles alternate and the first turn after the
 * system prompt is the caller's, because strict chat templates of local servers refuse anything else: consecutive
 * lines of one speaker are merged, and a short stage note stands in for the caller when there is nothing to answer.
 */
import type { DialogMessage, DialogTurnRequest } from '../../adapters/types.js';
import { fillTemplate } from '../../dialog/engine.js';
import { isValidTimeZone, isoWithOffset } from '../../dialog/zoned_time.js';
import type { ChatMessage } from './client.js';
import { BUILTIN } from './tools.js';

/** The callee's zone for spoken and booked times: the request's, else context.time_zone, else UTC. */
export function timeZoneOf(req: DialogTurnRequest): string {
  const tz = req.timeZone ?? req.context.time_zone ?? req.context.timezone;
  return tz && isValidTimeZone(tz) ? tz : 'UTC';
}

const TOOL_GUIDE: Record<string, string> = {
  calendar_booking: 'calendar_booking: once the caller agrees to a day and time, book it (start with the UTC offset).',
  crm_sync: 'crm_sync: update the lead in the CRM when something important changed; it also happens by itself when the call ends.',
  messaging_brochure: 'messaging_brochure: when the caller asks for details or a brochure, send it on WhatsApp and say so.',
};

export function systemPrompt(req: DialogTurnRequest, now: Date): string {
  const vars = { ...req.context, ...req.extracted };
  const tz = timeZoneOf(req);
  const lines: string[] = [
    `You are an AI voice agent on a live phone call. Your role: ${req.agent.role || 'calling agent'}.`,
    `Speak ${languageName(req.agent.language)} only. What you write is spoken aloud: short sentences, one question at a time, no lists, no markdown, no emojis; say numbers, amounts and times as a person would.`,
  ];
  const disclosure = fillTemplate(req.agent.disclosure_script, vars);
  if (disclosure) lines.push(`The caller has already heard this disclosure: "${disclosure}". Do not repeat it.`);
  lines.push('', 'Your goal is to qualify the caller with this script:');
  if (req.agent.qualify_text?.trim()) lines.push(req.agent.qualify_text.trim(), '', 'Its questions, each with the field its answer fills:');
  req.agent.qualify_script.forEach((s, i) => lines.push(`${i + 1}. [${s.field}] ${fillTemplate(s.question, vars)}`));
  const known = Object.entries(req.extracted);
  lines.push('', known.length ? `Already known (do not ask again): ${known.map(([k, v]) => `${k} = ${v}`).join('; ')}.` : 'Nothing is known about the caller yet.');
  const context = Object.entries(req.context).filter(([k]) => k !== 'human_handoff');
  if (context.length) lines.push(`Call context: ${context.map(([k, v]) => `${k} = ${v}`).join('; ')}.`);
  const { customer_name: name, project_name: project, budget_tier: tier } = req.context;
  if (name) lines.push(`You are calling ${name}: greet them by name and do not ask for their name unless someone else answers.`);
  if (project) lines.push(`The call is about ${project}: name it when you greet the caller and when asked why you are calling.`);
  if (tier) lines.push(`Their budget is on file as ${tier}: confirm it rather than asking for it.`);
  const knowledge = req.agent.knowledge ?? [];
  if (knowledge.length) {
    lines.push('', 'What you know (answer the caller\'s questions from this only; never invent facts, prices or availability):');
    for (const k of knowledge) lines.push(k.question ? `- Q: ${k.question} A: ${k.answer}` : `- ${k.answer}`);
  }
  lines.push('A question you cannot answer from what you know: say the team will follow up, and record it with '
    + `${BUILTIN.record} as open_questions (the questions joined by " | ").`);
  const weekday = weekdayFormatter(tz).format(now);
  lines.push(`It is now ${weekday} ${isoWithOffset(now.getTime(), tz)} (${tz}). Resolve dates like "tomorrow" or "next Tuesday" against it.`);
  lines.push(
    '',
    'Tools:',
    `- ${BUILTIN.record}: call it as soon as the caller gives any field (customer_name, intent, budget as an amount with its currency code, scheduled_slot as ISO 8601 with the UTC offset of ${tz}, qualification_score 0-100 once qualified).`,
    req.context.human_handoff === 'unavailable'
      ? `- ${BUILTIN.human}: no colleague can take over on this line; if asked for a person, say so kindly and keep helping.`
      : `- ${BUILTIN.human}: when the caller asks for a person, or you cannot go on, say you are connecting them, then call it.`,
    `- ${BUILTIN.end}: when the script is done or the caller wants to stop, thank them, say goodbye, then call it. Reason opted_out `
      + 'when they ask not to be called again (stop calling, do not call me), callback_requested when they ask to be called back later '
      + '(record callback_at first, ISO 8601 with the offset, between 09:00 and 21:00 their time), wrong_number, caller_declined.',
    'Never say a visit is booked or a brochure sent unless its tool answered with success in this call; otherwise say you have noted '
      + 'the preferred time or the request and the team will confirm.',
  );
  for (const t of req.tools) if (TOOL_GUIDE[t]) lines.push(`- ${TOOL_GUIDE[t]}`);
  lines.push('When every question is answered, thank the caller and ask whether there is anything else; answer it, and end the call when they are done.');
  return lines.join('\n');
}

// Intl objects cost a fraction of a millisecond each to build, on every turn of every call: built once
const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });
const weekdayFormatters = new Map<string, Intl.DateTimeFormat>();
const weekdayFormatter = (timeZone: string): Intl.DateTimeFormat => {
  let f = weekdayFormatters.get(timeZone);
  if (!f) weekdayFormatters.set(timeZone, (f = new Intl.DateTimeFormat('en-US', { weekday: 'long', timeZone })));
  return f;
};

/** "Hindi (India) (hi-IN)": a model reads a language name more reliably than a tag alone. */
function languageName(tag: string): string {
  try {
    const name = languageNames.of(tag);
    return name && name !== tag ? `${name} (${tag})` : tag;
  } catch {
    return tag;
  }
}

/** The system prompt and the conversation so far, ending with what the caller just said. */
export function buildMessages(req: DialogTurnRequest, now: Date): ChatMessage[] {
  const history: DialogMessage[] = [...req.history];
  const caller = req.callerText.trim();
  // a live call has already recorded the caller's words in the history; the demo loop has not
  while (caller && history.at(-1)?.role === 'caller' && caller.includes(history.at(-1)!.text.trim())) history.pop();
  const turns: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  const add = (role: 'user' | 'assistant', content: string) => {
    const text = content.trim();
    if (!text) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content += `\n${text}`;
    else turns.push({ role, content: text });
  };
  for (const m of history) {
    if (m.role === 'caller') add('user', m.text);
    else if (m.role === 'agent') add('assistant', m.text);
    else if (m.role === 'operator') add('assistant', `(a human colleague said:) ${m.text}`);
  }
  if (caller) add('user', caller);
  else if (req.unheard) add('user', '(the caller said something the speech recognition did not understand)');
  else add('user', turns.some((t) => t.role === 'assistant' && !isDisclosure(t.content, req)) ? '(the caller is silent)' : '(the caller picked up and is listening)');
  if (turns[0]?.role === 'assistant') turns.unshift({ role: 'user', content: '(the call connected)' });
  return [{ role: 'system', content: systemPrompt(req, now) }, ...turns];
}

function isDisclosure(text: string, req: DialogTurnRequest): boolean {
  return text === fillTemplate(req.agent.disclosure_script, { ...req.context, ...req.extracted });
}
