/**
 * GET /agents (any tenant JWT), PUT /agents/:id (admin JWT: create or replace, defaults for what is left out) and
 * PATCH /agents/:id (admin JWT: change only the fields given). A qualify script is ordered {field, question} steps
 * or text (instructions and questions in prose): text is stored and returned as written, and the scripted engine
 * asks the questions derived from it (src/dialog/script_text.ts), shown as `qualify_steps`.
 */
import { z } from 'zod';
import { parse } from '../validate.js';
import { principalOf } from '../auth_middleware.js';
import type { RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { notFound } from '../../errors.js';
import { DEFAULT_AGENT, type AgentInput, type AgentPatch, type QualifyStep } from '../../repos/agents.js';
import { MAX_TEXT_STEPS, stepsOfScriptText } from '../../dialog/script_text.js';
import { KNOWLEDGE_LIMITS, type KnowledgeEntry } from '../../dialog/knowledge.js';
import { AgentRuntimeSettingsSchema, LANGUAGE_TAG } from '../../calls/agent_settings.js';
import { TRANSFER_MODES } from '../../adapters/types.js';

export { AgentRuntimeSettingsSchema, LANGUAGE_TAG };

/** Longest qualify script written as text, characters. */
export const QUALIFY_TEXT_MAX_CHARS = 8000;

const QualifySteps = z.array(z.strictObject({
  field: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a snake_case key'),
  question: z.string().min(1).max(500),
})).max(20);
const QualifyText = z.string().trim().min(1).max(QUALIFY_TEXT_MAX_CHARS);

/** Question/answer pairs, or a plain fact as a string (stored as {answer}). */
const Knowledge = z.array(z.union([
  z.string().trim().min(1).max(KNOWLEDGE_LIMITS.answerChars),
  z.strictObject({
    question: z.string().trim().min(1).max(KNOWLEDGE_LIMITS.questionChars).optional(),
    answer: z.string().trim().min(1).max(KNOWLEDGE_LIMITS.answerChars),
  }),
])).max(KNOWLEDGE_LIMITS.entries);

/** E.164, as carriers dial it */
const E164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number (+ and digits)');

const agentFields = <S extends z.ZodType>(script: S) => ({
  name: z.string().min(1).max(200),
  disclosure_script: z.string().min(1).max(2000),
  qualify_script: script,
  ...AgentRuntimeSettingsSchema.shape,
  /** what an answering machine gets: a hang-up, or voicemail_message after the beep */
  voicemail: z.enum(['hang_up', 'leave_message']),
  /** null clears it (the disclosure is left instead) */
  voicemail_message: z.string().trim().min(1).max(1000).nullable(),
  /** null clears it (HUMAN_TRANSFER_NUMBER is dialed instead) */
  transfer_number: E164.nullable(),
  /** cold: straight through; warm: the human hears the call's summary while the caller holds */
  transfer_mode: z.enum(TRANSFER_MODES),
  knowledge: Knowledge,
});
/** Every field optional: PUT fills what is left out with the defaults, PATCH leaves it as it is. */
const bodyWith = <S extends z.ZodType>(script: S) => z.strictObject(agentFields(script)).partial();
const WithSteps = bodyWith(QualifySteps);
const WithText = bodyWith(QualifyText);
/** The documented body: a qualify script is either form. */
export const AgentBody = bodyWith(z.union([QualifyText, QualifySteps]));

/** Parses with the schema of the script's form, so an error names what is wrong with that form (not "Invalid input"). */
function parseAgentBody(body: unknown): AgentPatch {
  const script = (body as { qualify_script?: unknown } | null)?.qualify_script;
  const parsed = typeof script === 'string' ? parse(WithText, body) : parse(WithSteps, body);
  const { knowledge, ...rest } = parsed;
  const b: AgentPatch = knowledge === undefined ? rest : { ...rest, knowledge: knowledge.map((k): KnowledgeEntry => (typeof k === 'string' ? { answer: k } : k)) };
  if (typeof b.qualify_script !== 'string') return b.qualify_script ? { ...b, qualify_steps: b.qualify_script } : b;
  // never refused: questions, else the topics its instructions name, else the default steps (a model reads the text)
  const steps: QualifyStep[] = stepsOfScriptText(b.qualify_script, DEFAULT_AGENT.qualify_script);
  return { ...b, qualify_steps: steps };
}

export const AgentIdParam = z.object({ agent_id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'lowercase letters, digits, - and _; at most 64') });

/** What PUT stores for a field left out: name = the agent id; the rest as the default agent. */
export function withDefaults(id: string, b: AgentPatch): AgentInput {
  return {
    name: b.name ?? id,
    disclosure_script: b.disclosure_script ?? DEFAULT_AGENT.disclosure_script,
    qualify_script: b.qualify_script ?? DEFAULT_AGENT.qualify_script,
    qualify_steps: b.qualify_steps ?? DEFAULT_AGENT.qualify_script,
    role: b.role ?? DEFAULT_AGENT.role,
    voice: b.voice ?? DEFAULT_AGENT.voice,
    language: b.language ?? DEFAULT_AGENT.language,
    interruption_sensitivity: b.interruption_sensitivity ?? DEFAULT_AGENT.interruption_sensitivity,
    turn_detection_timeout_ms: b.turn_detection_timeout_ms ?? DEFAULT_AGENT.turn_detection_timeout_ms,
    voicemail: b.voicemail ?? 'hang_up',
    voicemail_message: b.voicemail_message ?? null,
    transfer_number: b.transfer_number ?? null,
    transfer_mode: b.transfer_mode ?? 'cold',
    knowledge: b.knowledge ?? [],
  };
}

const d = DEFAULT_AGENT;
const DEFAULTS_DOC = `Left out: name = the agent id, disclosure_script = the default AI disclosure, qualify_script = the default four `
  + `steps (name, intent, budget, visit time), role "${d.role}", voice "${d.voice}", language "${d.language}", `
  + `interruption_sensitivity ${d.interruption_sensitivity}, turn_detection_timeout_ms ${d.turn_detection_timeout_ms}, `
  + `voicemail "hang_up", voicemail_message null (the disclosure is left), transfer_number null (HUMAN_TRANSFER_NUMBER), transfer_mode "cold".`;
const CALL_HANDLING_DOC = 'voicemail: what a machine answer gets (answering-machine detection of a live carrier): "hang_up" or '
  + '"leave_message" (voicemail_message, else the disclosure, spoken after the beep, then the call ends; ended_reason voicemail). '
  + 'transfer_number: the E.164 number a transfer to a human (POST /v1/calls/{id}/transfer without a target, or the agent '
  + 'escalating) dials for this agent. transfer_mode: "cold" puts the caller straight through; "warm" holds the caller (hold '
  + 'audio) while the human is called and hears a short summary of the call (who, what they want, budget, next step), then '
  + 'connects the two (Twilio and Plivo: a conference; Exotel: the Connect applet\'s callee playback; the simulator records it).';
const SCRIPT_DOC = `qualify_script: ordered {field, question} steps (at most 20), or text of at most ${QUALIFY_TEXT_MAX_CHARS} characters `
  + `(instructions and questions in prose), stored and returned as written; the scripted engine asks one step per question `
  + `sentence (ending in "?"), each mapped to customer_name, intent, budget or scheduled_slot when it asks for one, else to `
  + `a field named after its words (at most ${MAX_TEXT_STEPS}); a text of plain instructions ("Ask about budget, intent and a good `
  + `time for a site visit.") gives one step per topic it names (name, intent/requirement, budget, visit or call-back time, anything `
  + `else as a free question), and a text naming none the default steps: no script is refused. qualify_steps shows them.`;
const KNOWLEDGE_DOC = `knowledge: what the agent answers callers' questions from, at most ${KNOWLEDGE_LIMITS.entries} entries, each `
  + `{question?, answer} (question at most ${KNOWLEDGE_LIMITS.questionChars} characters, answer at most ${KNOWLEDGE_LIMITS.answerChars}) `
  + `or a plain fact as a string (stored as {answer}); the scripted engine matches a question to an entry by its words (BM25) and `
  + `otherwise says the team will follow up and records the question (extracted_data.open_questions); a language model gets the `
  + `entries in its prompt. Left out: [].`;

export function agentRoutes(t: RouteTable, deps: AppDeps): void {
  t.add({
    method: 'get', path: '/agents', tag: 'agents', auth: { kind: 'auth' },
    summary: "List the tenant's agents with their scripts (qualify_script as written, qualify_steps as the scripted engine asks them) and runtime settings.",
    handler: async (req) => ({ data: await deps.repos.agents.list(principalOf(req).tenantId) }),
  });
  t.add({
    method: 'put', path: '/agents/:agent_id', tag: 'agents', auth: { kind: 'auth', role: 'admin' }, body: AgentBody,
    summary: `Create or replace an agent: disclosure script, qualify script, knowledge, runtime settings and call handling. ${SCRIPT_DOC} ${KNOWLEDGE_DOC} ${CALL_HANDLING_DOC} ${DEFAULTS_DOC}`,
    responses: { 200: 'replaced', 201: 'created' },
    handler: async (req, res) => {
      const { agent_id } = parse(AgentIdParam, req.params, 'params');
      const body = withDefaults(agent_id, parseAgentBody(req.body));
      const { agent, created } = await deps.repos.agents.put(principalOf(req).tenantId, agent_id, body);
      res.status(created ? 201 : 200).json(agent);
    },
  });
  t.add({
    method: 'patch', path: '/agents/:agent_id', tag: 'agents', auth: { kind: 'auth', role: 'admin' }, body: AgentBody,
    summary: `Change only the given fields of an existing agent (the same fields as PUT; null clears voicemail_message or transfer_number; ${SCRIPT_DOC} ${KNOWLEDGE_DOC})`,
    responses: { 200: 'updated', 404: 'no such agent' },
    handler: async (req) => {
      const { agent_id } = parse(AgentIdParam, req.params, 'params');
      const agent = await deps.repos.agents.patch(principalOf(req).tenantId, agent_id, parseAgentBody(req.body));
      if (!agent) throw notFound(`agent ${agent_id}`);
      return agent;
    },
  });
}
