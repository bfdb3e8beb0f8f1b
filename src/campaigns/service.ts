/** Campaigns as one service: the repository (API side) and this instance's dialer loop. */
import type { Db } from '../db/db.js';
import type { Logger } from '../log.js';
import { CampaignRepo } from './repo.js';
import { CampaignDialer } from './dialer.js';
import type { CallGate, CampaignCallPort } from './ports.js';

export interface CampaignServiceOptions {
  db: Db; log: Logger; tickMs: number; leaseSeconds: number;
  /** the call engine; without it this instance stores campaigns but does not dial (another instance may) */
  calls?: CampaignCallPort;
  gate: CallGate;
  clock?: () => Date;
}

export class CampaignService {
  readonly repo: CampaignRepo;
  readonly dialer?: CampaignDialer;
  constructor(o: CampaignServiceOptions) {
    this.repo = new CampaignRepo(o.db);
    // CAMPAIGN_TICK_MS=0: this instance stores campaigns but never dials (nor reacts to nudges or ended calls)
    if (o.calls && o.tickMs > 0) this.dialer = new CampaignDialer({ db: o.db, log: o.log, calls: o.calls, gate: o.gate, clock: o.clock, tickMs: o.tickMs, leaseSeconds: o.leaseSeconds });
    else if (!o.calls) o.log.warn('campaign dialer not started: no call service is wired');
  }
  start(): void { this.dialer?.start(); }
  /** A state change should take effect now, not at the next tick. */
  nudge(): void { void this.dialer?.kick(); }
  async close(): Promise<void> { await this.dialer?.stop(); }
}
