/** The lead-side services in one place: leads, DND registry, consent log, the lead-call scheduler. */
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { Logger } from '../log.js';
import type { AgentRepo } from '../repos/agents.js';
import { newId } from '../ids.js';
import { LeadDispatcher } from './dispatcher.js';
import { DndRepo } from './dnd_repo.js';
import { ConsentRepo } from './lead_repo.js';
import { LeadService } from './service.js';
import type { LeadCallPort } from './types.js';

export interface LeadServices {
  leads: LeadService;
  dnd: DndRepo;
  consents: ConsentRepo;
  scheduler: LeadDispatcher;
  /** the call engine's dispatch (deps.calls); read at each dial, so a test may put a recording port in its place */
  calls: LeadCallPort;
  close(): Promise<void>;
}

export function buildLeadServices(config: Config, db: Db, log: Logger, agents: AgentRepo, ports: { calls: LeadCallPort }): LeadServices {
  const instanceId = newId('inst');
  let leads: LeadService | undefined;
  const clock = () => (leads ? leads.clock() : new Date());
  const scheduler = new LeadDispatcher({ db, log, instanceId, leaseSeconds: config.LEAD_SCHEDULER_LEASE_SECONDS, calls: () => out.calls, clock });
  leads = new LeadService({
    db, agents, dispatcher: scheduler, calls: () => out.calls, instanceId,
    defaultRegion: config.DEFAULT_PHONE_REGION, duplicateWindowSeconds: config.LEAD_DUPLICATE_WINDOW_SECONDS,
  });
  scheduler.start(config.LEAD_SCHEDULER_TICK_MS);
  const out: LeadServices = { leads, dnd: new DndRepo(db), consents: new ConsentRepo(db), scheduler, calls: ports.calls, close: () => scheduler.close() };
  return out;
}
