/**
 * Every table that can hold a subject's data, as one descriptor each. Export reads them in order; erase
 * deletes them in order (children before parents), all in one transaction. A table added later is one entry
 * here; test/privacy/privacy_registry.test.ts fails until every table of the schema is either listed here or in
 * NOT_SUBJECT_DATA with a reason.
 *
 * `where` is a predicate over the table (unaliased) with named parameters resolved per subject:
 *   :tenant (tenant id), :hash (SHA-256 hex of the E.164), :calls / :leads / :convs (text[] of the subject's
 *   call, lead and conversation ids, resolved up front by scope.ts).
 */
import { sqlHash } from './subject.js';

export interface SubjectTable {
  table: string;
  where: string;
  /** 'delete' (default), or keep the rows and say why (reported in the erase result and audit) */
  erase?: { keep: string };
  /** columns whose values are files to delete after the rows are gone (paths as the writer stored them) */
  fileColumns?: string[];
}

/** Why do-not-disturb entries survive erasure (reported in the erase result). */
export const DND_KEPT = 'an opt-out must outlive an erasure request, or the number could be dialed again (legal obligation: TRAI/NDNC; GDPR Art. 17(3)(b))';

/** Why the audit of transactional (gate-exempt) calls survives erasure. */
export const COMPLIANCE_KEPT = 'the proof that a call placed past the do-not-disturb and calling-hours gates was lawful (who marked it transactional and why) must outlive the call (legal obligation: TRAI TCCCPR; GDPR Art. 17(3)(b)); it holds the number only as its hash';

export const SUBJECT_TABLES: SubjectTable[] = [
  { table: 'handoff_events', where: 'conversation_id = ANY(:convs)' },
  { table: 'conversation_messages', where: 'conversation_id = ANY(:convs)' },
  { table: 'conversations', where: 'tenant_id = :tenant AND id = ANY(:convs)' },
  { table: 'call_events', where: 'tenant_id = :tenant AND call_id = ANY(:calls)' },
  { table: 'call_event_counters', where: 'call_id = ANY(:calls)' },
  // transitions stored before status items carried them (later ones are the status items in call_events)
  { table: 'call_transitions', where: 'tenant_id = :tenant AND call_id = ANY(:calls)' },
  { table: 'campaign_contacts', where: `tenant_id = :tenant AND (${sqlHash('phone')} = :hash OR call_id = ANY(:calls))` },
  { table: 'calendar_bookings', where: `tenant_id = :tenant AND (${sqlHash('phone')} = :hash OR call_id = ANY(:calls) OR lead_id = ANY(:leads))` },
  { table: 'inbound_webhook_events', where: 'tenant_id = :tenant AND subject_hash = :hash' },
  // outbound call.completed deliveries (payload holds the call) and their attempt log
  { table: 'webhook_attempts', where: 'tenant_id = :tenant AND call_id = ANY(:calls)' },
  { table: 'webhook_outbox', where: 'tenant_id = :tenant AND call_id = ANY(:calls)' },
  { table: 'calls', where: 'tenant_id = :tenant AND id = ANY(:calls)', fileColumns: ['recording_path'] },
  { table: 'lead_call_jobs', where: 'tenant_id = :tenant AND lead_id = ANY(:leads)' },
  { table: 'leads', where: 'tenant_id = :tenant AND id = ANY(:leads)' },
  // consent is erased with the person: without it no call goes through, which is the safe side
  { table: 'consents', where: `tenant_id = :tenant AND ${sqlHash('e164')} = :hash` },
  { table: 'dnd_numbers', where: `tenant_id = :tenant AND ${sqlHash('e164')} = :hash`, erase: { keep: DND_KEPT } },
  { table: 'compliance_audit', where: 'tenant_id = :tenant AND subject_hash = :hash', erase: { keep: COMPLIANCE_KEPT } },
];

/** Tables that never hold a subject's data, each with the reason (the registry test reads this). */
export const NOT_SUBJECT_DATA: Record<string, string> = {
  schema_migrations: 'migration bookkeeping',
  schema_functions: 'bookkeeping of applied stored-function texts',
  tenants: 'tenant names only',
  users: 'operator/admin accounts, not call subjects',
  api_keys: 'service credentials (hashed)',
  agents: 'agent scripts and settings',
  agent_keypads: 'what each key of the phone does on an agent\'s calls',
  inbound_numbers: 'the tenant\'s own numbers that take calls (business lines, not a subject\'s) and their agent and webhook',
  inbound_defaults: 'the tenant\'s inbound agent and webhook',
  engine_instances: 'call engine processes alive (host:pid ids and heartbeat times)',
  tenant_privacy_settings: 'retention period per tenant',
  tenant_handoff_settings: 'hold time and call-back delay per tenant',
  privacy_audit: 'holds only the subject hash, counts, actor and time: the proof of erasure must survive it',
  campaigns: 'campaign settings; contacts live in campaign_contacts',
  tenant_webhook_secrets: 'outbound webhook signing secret per tenant',
  inbound_secrets: 'ids and names of per-tenant inbound webhook secrets (the secrets are derived, not stored)',
};
