/**
 * A stand-in call engine for dialer tests and the pacing bench: dispatch() inserts a real calls row
 * (status dialing, campaign_id set) and ends it after `durationMs` with the status the script chooses,
 * updating the row and notifying onCallEnded listeners, like deps.calls does. It counts calls in flight
 * (dispatched, not yet ended) and the maximum ever seen.
 */
import type { Db } from '../../src/db/db.js';
import { newId } from '../../src/ids.js';
import type { CampaignCallPort, CampaignDispatchInput, EndedCall } from '../../src/campaigns/ports.js';

export type Script = (phone: string, attempt: number) => { status: string; hang?: boolean };

export class FakeCalls implements CampaignCallPort {
  inFlight = 0;
  maxInFlight = 0;
  dispatched: string[] = [];
  #listeners: Array<(c: EndedCall) => void> = [];
  #attempts = new Map<string, number>();
  #pending = new Set<Promise<void>>();
  /** calls left hanging by the script (ended later by the test, e.g. "while the service was down") */
  hanging: string[] = [];
  constructor(public db: Db, private tenant: string, private script: Script = () => ({ status: 'completed' }), private durationMs = 1) {}

  onCallEnded(l: (c: EndedCall) => void): void { this.#listeners.push(l); }

  async dispatch(tenantId: string, input: CampaignDispatchInput): Promise<{ id: string; status: string }> {
    if (tenantId !== this.tenant) throw new Error('wrong tenant');
    const id = newId('call');
    const attempt = (this.#attempts.get(input.to) ?? 0) + 1;
    this.#attempts.set(input.to, attempt);
    this.dispatched.push(input.to);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await this.db.query(`INSERT INTO calls (id, tenant_id, agent_id, agent, to_number, language, status, campaign_id, context)
      VALUES ($1,$2,$3,'{}'::jsonb,$4,'en-US','dialing',$5,$6::jsonb)`, [id, tenantId, input.agent_id, input.to, input.campaign_id, JSON.stringify(input.context)]);
    const outcome = this.script(input.to, attempt);
    if (outcome.hang) { this.hanging.push(id); return { id, status: 'dialing' }; }
    const p = new Promise<void>((resolve) => setTimeout(resolve, this.durationMs)).then(() => this.end(id, outcome.status, input.campaign_id));
    this.#pending.add(p);
    void p.finally(() => this.#pending.delete(p));
    return { id, status: 'dialing' };
  }

  async end(id: string, status: string, campaignId: string | null, notify = true): Promise<void> {
    await this.db.query(`UPDATE calls SET status = $2, ended_at = now(), answered_at = CASE WHEN $2 = 'completed' THEN now() END WHERE id = $1`, [id, status]);
    this.inFlight--;
    if (notify) for (const l of this.#listeners) l({ id, status, campaign_id: campaignId });
  }

  /** Waits until every scheduled (non-hanging) call has ended. */
  async settle(): Promise<void> { while (this.#pending.size) await Promise.all([...this.#pending]); }
  count(phone: string): number { return this.dispatched.filter((p) => p === phone).length; }
}
