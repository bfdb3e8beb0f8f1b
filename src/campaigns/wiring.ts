/**
 * The operations services in one place so services.ts stays a wiring file: privacy (with its retention
 * schedule), campaigns (with this instance's dialer) and the inbound webhooks' effects.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { Logger } from '../log.js';
import { PrivacyService } from '../privacy/service.js';
import { RecordingStore } from '../recordings/store.js';
import { CampaignService } from './service.js';
import type { CallGate, CampaignCallPort } from './ports.js';
import type { DndWriter } from '../inbound/events.js';
import { leadsGate } from './gate.js';
import { addToDnd } from '../leads/dnd_repo.js';

export interface OpsPorts { calls?: CampaignCallPort; gate?: CallGate; addToDnd?: DndWriter }

export interface OpsServices {
  privacy: PrivacyService;
  campaigns: CampaignService;
  inbound: { addToDnd?: DndWriter };
  close(): Promise<void>;
}

export function buildOpsServices(config: Config, db: Db, log: Logger, ports: OpsPorts): OpsServices {
  const privacy = new PrivacyService({ db, log, defaultRetentionDays: config.PRIVACY_RETENTION_DEFAULT_DAYS, recordings: new RecordingStore(config.DATA_DIR, config.RECORDINGS_DIR) });
  privacy.startSchedule(config.PRIVACY_EXPIRE_INTERVAL_MS);
  // every campaign dial passes the DND/consent/calling-hours gate unless a test injects its own
  const campaigns = new CampaignService({
    db, log, tickMs: config.CAMPAIGN_TICK_MS, leaseSeconds: config.CAMPAIGN_CLAIM_LEASE_SECONDS,
    calls: ports.calls, gate: ports.gate ?? leadsGate(db),
  });
  campaigns.start();
  return {
    privacy, campaigns, inbound: { addToDnd: ports.addToDnd ?? addToDnd },
    async close() { privacy.stop(); await campaigns.close(); },
  };
}
