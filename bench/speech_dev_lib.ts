/**
 * Scores spoken caller turns black-box through the demo audio route (POST /v1/conversations/{id}/audio): each
 * conversation's turns in order, then what the agent understood against what was said (`expect`). Fair comparison:
 * amounts as numbers (lakh = 100,000, crore = 10,000,000), slots by local weekday or days from today and hour.
 * A field the agent did not fill is `missed` (a rejection); one filled with another value is `wrong`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SpeechDevConversation {
  scenario: string; voice: string; snr_db: number | null;
  turns: { file: string; text: string }[];
  expect: { customer_name?: string; intent?: string[]; budget?: number; slot?: { weekday?: number; relative_days?: number; hours: [number, number] };
    escalation?: boolean; ended?: boolean };
}

export interface FieldScore { scenario: string; field: string; outcome: 'right' | 'wrong' | 'missed'; got: unknown }

export function loadManifest(dir: string): SpeechDevConversation[] {
  return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as SpeechDevConversation[];
}

/** "4500000 INR" / "75000 USD" / "1500000" -> the number. */
export function budgetNumber(v: unknown): number | undefined {
  const m = /^(\d+(?:\.\d+)?)/.exec(String(v ?? ''));
  return m ? Number(m[1]) : undefined;
}

/** The slot's local date and hour from its ISO 8601 text with offset ("2026-11-29T11:00:00+00:00"). */
export function slotParts(v: unknown): { date: string; weekday: number; hour: number } | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}):/.exec(String(v ?? ''));
  if (!m) return undefined;
  return { date: m[1], weekday: new Date(`${m[1]}T00:00:00Z`).getUTCDay(), hour: Number(m[2]) };
}

export interface ConversationOutcome { entities: Record<string, string | number>; escalation: boolean; ended: boolean; heard: string[] }

export function scoreConversation(c: SpeechDevConversation, o: ConversationOutcome, today: string): FieldScore[] {
  const out: FieldScore[] = [];
  const add = (field: string, got: unknown, ok: boolean | undefined) =>
    out.push({ scenario: c.scenario, field, got, outcome: ok === undefined ? 'missed' : ok ? 'right' : 'wrong' });
  const e = c.expect, x = o.entities;
  if (e.customer_name !== undefined) {
    add('customer_name', x.customer_name, x.customer_name === undefined ? undefined : String(x.customer_name).toLowerCase().includes(e.customer_name.toLowerCase()));
  }
  if (e.intent) {
    const v = x.intent === undefined ? undefined : String(x.intent).toLowerCase();
    add('intent', x.intent, v === undefined ? undefined : e.intent.some((w) => v.includes(w.toLowerCase())));
  }
  if (e.budget !== undefined) {
    const n = budgetNumber(x.budget);
    add('budget', x.budget, n === undefined ? undefined : n === e.budget);
  }
  if (e.slot) {
    const s = slotParts(x.scheduled_slot);
    const dayOk = (p: NonNullable<typeof s>) => (e.slot!.weekday !== undefined ? p.weekday === e.slot!.weekday
      : Math.round((Date.parse(`${p.date}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000) === e.slot!.relative_days);
    add('slot', x.scheduled_slot, s === undefined ? undefined : dayOk(s) && s.hour >= e.slot.hours[0] && s.hour <= e.slot.hours[1]);
  }
  // booleans have no rejection: what happened is right or wrong
  if (e.escalation !== undefined) add('escalation', o.escalation, o.escalation === e.escalation);
  if (e.ended !== undefined) add('ended', o.ended, o.ended === e.ended);
  return out;
}

/** Sends one conversation's turns to a running service (baseUrl ends in /v1); resolves with what the agent understood. */
export async function runConversation(baseUrl: string, dir: string, c: SpeechDevConversation): Promise<ConversationOutcome> {
  const conv = await (await fetch(`${baseUrl}/conversations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json() as { id: string };
  const o: ConversationOutcome = { entities: {}, escalation: false, ended: false, heard: [] };
  for (const t of c.turns) {
    const res = await fetch(`${baseUrl}/conversations/${conv.id}/audio`, { method: 'POST', headers: { 'content-type': 'audio/wav' }, body: readFileSync(join(dir, t.file)) });
    const body = await res.json() as { agent?: { entities: Record<string, string | number>; escalation: string | null; ended: string | null }; caller?: { text: string }; state?: string };
    if (!res.ok || !body.agent) { o.heard.push(`(${res.status})`); if (res.status === 409) break; continue; }
    Object.assign(o.entities, body.agent.entities);
    o.escalation ||= body.agent.escalation !== null;
    o.ended ||= body.agent.ended !== null;
    o.heard.push(body.caller?.text ?? '');
    if (body.state !== 'active') break;
  }
  return o;
}
