/**
 * Export, erase and transcript expiry over the registry (registry.ts). Erasure runs in one transaction and
 * writes its audit record (subject hash, counts per table, actor, time) in that same transaction; recording
 * files are unlinked after the commit so a rollback never loses a file whose row survived.
 */
import { unlink } from 'node:fs/promises';
import type { Db, Queryable } from '../db/db.js';
import type { Logger } from '../log.js';
import { newId } from '../ids.js';
import { conflict } from '../errors.js';
import { liveCallIds } from '../calls/repo.js';
import { SUBJECT_TABLES } from './registry.js';
import { resolveScope, type SubjectScope } from './scope.js';
import { existingTables, queryNamed } from './sql.js';
import { expireTranscripts, type ExpireResult } from './retention.js';

export interface EraseResult { subject: string; ended_calls: string[]; deleted: Record<string, number>; retained: Record<string, { rows: number; reason: string }>; audit_id: string }
export interface AuditRecord { id: string; action: string; subject_hash: string | null; counts: Record<string, unknown>; actor: string; at: string }

/** Passes of end-then-erase before a call that keeps starting for the subject answers 409. */
const ERASE_ROUNDS = 3;

class LiveCallsLeft extends Error { constructor(readonly n: number) { super(`${n} live call(s) left`); } }

export interface PrivacyOptions {
  db: Db; log: Logger; defaultRetentionDays: number; clock?: () => Date;
  /**
   * Where the recording store writes a call's file. Erasure removes that file too when no recording_path names
   * it: a call cut off by a crash or restart leaves the part of its recording streamed so far, unreferenced.
   */
  recordings?: { pathOf(callId: string): string };
}

export class PrivacyService {
  #timer?: NodeJS.Timeout;
  constructor(private o: PrivacyOptions) {}
  #now = () => (this.o.clock ?? (() => new Date()))();

  async export(tenant: string, hash: string, actor: string): Promise<{ subject: string; tables: Record<string, unknown[]> }> {
    // every table from one snapshot: a call ending meanwhile shows with its status items and webhooks, or without
    const out = await this.o.db.snapshot(async (q) => {
      const tables = await existingTables(q);
      const scope = await resolveScope(q, tables, tenant, hash);
      const rows: Record<string, unknown[]> = {};
      for (const d of SUBJECT_TABLES) {
        if (tables.has(d.table)) rows[d.table] = (await queryNamed(q, `SELECT * FROM ${d.table} WHERE ${d.where}`, bind(d.where, scope))).rows;
      }
      return rows;
    });
    const counts = Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.length]));
    await audit(this.o.db, { tenant, action: 'export', hash, counts, actor });
    return { subject: hash, tables: out };
  }

  /**
   * Erases the subject. Calls of the subject not over yet are ended first through `o.endCalls` (the call engine's
   * hang-up path, ended reason 'erased'), then the rows go in one transaction: a live call has a session writing
   * events for it, so its end is stored before its rows are deleted. A call that starts meanwhile is ended too
   * (ERASE_ROUNDS passes); without `endCalls` a live call answers 409 as before.
   */
  async erase(tenant: string, hash: string, actor: string, o: {
    endCalls?: (ids: string[]) => Promise<string[]>;
    /** after the commit: the erased calls, so every instance deletes the recordings it wrote for them */
    erasedCalls?: (ids: string[]) => Promise<void>;
  } = {}): Promise<EraseResult> {
    const endedCalls = new Set<string>();
    for (let round = 1; ; round++) {
      const live = await this.#liveCalls(this.o.db, tenant, hash);
      if (live.length && o.endCalls) for (const id of await o.endCalls(live)) endedCalls.add(id);
      try {
        return await this.#eraseNow(tenant, hash, actor, [...endedCalls], o.erasedCalls);
      } catch (err) {
        if (!(err instanceof LiveCallsLeft) || !o.endCalls || round >= ERASE_ROUNDS) {
          if (err instanceof LiveCallsLeft) throw conflict('the subject has a call in progress; erase once it has ended', { retryable: true, active_calls: err.n });
          throw err;
        }
      }
    }
  }

  /** Ids of the subject's calls that are not over yet. */
  async #liveCalls(db: Queryable, tenant: string, hash: string): Promise<string[]> {
    const scope = await resolveScope(db, await existingTables(db), tenant, hash);
    return liveCallIds(db, tenant, scope.calls);
  }

  async #eraseNow(tenant: string, hash: string, actor: string, endedCalls: string[], erasedCalls?: (ids: string[]) => Promise<void>): Promise<EraseResult> {
    const files: string[] = [];
    const orphans: string[] = [];
    const callIds: string[] = [];
    const result = await this.o.db.transaction(async (tx) => {
      const tables = await existingTables(tx);
      const scope = await resolveScope(tx, tables, tenant, hash);
      callIds.push(...scope.calls);
      if (this.o.recordings) for (const id of scope.calls) orphans.push(this.o.recordings.pathOf(id));
      // a live call has a session writing events for it: it is ended (erase) before its rows go
      const live = (await liveCallIds(tx, tenant, scope.calls)).length;
      if (live > 0) throw new LiveCallsLeft(live);
      const deleted: Record<string, number> = {};
      const retained: EraseResult['retained'] = {};
      for (const d of SUBJECT_TABLES) {
        if (!tables.has(d.table)) continue;
        const v = bind(d.where, scope);
        if (d.erase) {
          const n = (await queryNamed<{ n: number }>(tx, `SELECT count(*)::int AS n FROM ${d.table} WHERE ${d.where}`, v)).rows[0].n;
          retained[d.table] = { rows: n, reason: d.erase.keep };
          continue;
        }
        const returning = d.fileColumns?.length ? ` RETURNING ${d.fileColumns.join(', ')}` : '';
        const r = await queryNamed<Record<string, unknown>>(tx, `DELETE FROM ${d.table} WHERE ${d.where}${returning}`, v);
        deleted[d.table] = r.rowCount;
        for (const row of r.rows) for (const c of d.fileColumns ?? []) if (typeof row[c] === 'string' && row[c]) files.push(row[c] as string);
      }
      deleted.recording_files = files.length;
      const counts = { deleted, retained: Object.fromEntries(Object.entries(retained).map(([k, x]) => [k, x.rows])), ended_calls: endedCalls.length };
      const auditId = await audit(tx, { tenant, action: 'erase', hash, counts, actor });
      return { subject: hash, ended_calls: endedCalls, deleted, retained, audit_id: auditId };
    });
    for (const f of new Set([...files, ...orphans])) {
      // recording_path is the path the recording store wrote (absolute, or relative to the process cwd)
      await unlink(f).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') this.o.log.warn({ code: err.code, audit_id: result.audit_id }, 'recording file could not be deleted');
      });
    }
    await erasedCalls?.(callIds).catch((err) => this.o.log.warn({ err, audit_id: result.audit_id }, 'other instances could not be told of the erasure'));
    return result;
  }

  async getRetentionDays(tenant: string): Promise<number> {
    const r = await this.o.db.query<{ d: number }>('SELECT transcript_retention_days AS d FROM tenant_privacy_settings WHERE tenant_id = $1', [tenant]);
    return r.rows[0]?.d ?? this.o.defaultRetentionDays;
  }

  async setRetentionDays(tenant: string, days: number, actor: string): Promise<number> {
    await this.o.db.query(
      `INSERT INTO tenant_privacy_settings (tenant_id, transcript_retention_days, updated_by) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id) DO UPDATE SET transcript_retention_days = EXCLUDED.transcript_retention_days, updated_by = EXCLUDED.updated_by, updated_at = now()`,
      [tenant, days, actor]);
    await audit(this.o.db, { tenant, action: 'retention', hash: null, counts: { days }, actor });
    return days;
  }

  /** Runs retention for one tenant (API) or all tenants (schedule, tenant undefined). */
  async expire(tenant: string | undefined, actor: string): Promise<ExpireResult> {
    const res = await expireTranscripts(this.o.db, { now: this.#now(), tenant, defaultDays: this.o.defaultRetentionDays });
    for (const [t, counts] of Object.entries(res.perTenant)) await audit(this.o.db, { tenant: t, action: 'expire', hash: null, counts, actor });
    return res;
  }

  async listAudit(tenant: string, limit: number): Promise<AuditRecord[]> {
    const r = await this.o.db.query<AuditRecord>(
      'SELECT id, action, subject_hash, counts, actor, at FROM privacy_audit WHERE tenant_id = $1 ORDER BY at DESC, id DESC LIMIT $2', [tenant, limit]);
    return r.rows.map((x) => ({ ...x, at: new Date(x.at).toISOString() }));
  }

  /** Retention on a schedule (ms); unref'd so it never holds the process open; stop() clears it. */
  startSchedule(intervalMs: number): void {
    if (intervalMs <= 0 || this.#timer) return;
    this.#timer = setInterval(() => {
      this.expire(undefined, 'scheduler').catch((err) => this.o.log.warn({ err }, 'scheduled transcript expiry failed'));
    }, intervalMs);
    this.#timer.unref();
  }
  stop(): void { clearInterval(this.#timer); this.#timer = undefined; }
}

/** Binds only the scope values the predicate names. */
function bind(where: string, s: SubjectScope): Record<string, unknown> {
  const all: Record<string, unknown> = { tenant: s.tenant, hash: s.hash, calls: s.calls, leads: s.leads, convs: s.convs };
  return Object.fromEntries(Object.entries(all).filter(([k]) => new RegExp(`:${k}\\b`).test(where)));
}

async function audit(db: Queryable, a: { tenant: string; action: string; hash: string | null; counts: Record<string, unknown>; actor: string }): Promise<string> {
  const id = newId('paud');
  await db.query('INSERT INTO privacy_audit (id, tenant_id, action, subject_hash, counts, actor) VALUES ($1, $2, $3, $4, $5::jsonb, $6)',
    [id, a.tenant, a.action, a.hash, JSON.stringify(a.counts), a.actor]);
  return id;
}
