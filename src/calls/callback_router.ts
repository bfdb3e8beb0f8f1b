/**
 * Carrier callbacks behind a balancer: the carrier calls PUBLIC_BASE_URL, so a status or answering-machine
 * callback may land on an instance that does not run its call. Such a callback is forwarded over the command
 * channel (src/calls/commands.ts) to the call's owner, whose carrier verifies and applies it as if it had come
 * there, and its answer is the carrier's answer. That holds for a while after the call's end too: the owner's
 * carrier still knows it (an Exotel flow's Passthru after a transfer closed the stream may come after the owner
 * stored the end). A callback of a call this instance runs, of no call another instance ran lately (a new inbound
 * call ringing our number), or whose owner is gone is answered here as before.
 */
import { CARRIER_LAST_WORD_MS } from '../carriers/call_tracker.js';
import type { CarrierAnswer, CarrierRequest } from '../carriers/contract.js';
import type { Db } from '../db/db.js';
import type { CallCommands } from './commands.js';
import type { CallRunner } from './runner.js';
import { ACTIVE_STATUSES } from './types.js';

/** The carriers' own names for their id of the call, in their callbacks' fields. */
const CARRIER_ID_FIELDS = ['CallSid', 'CallUUID', 'RequestUUID'] as const;
/** Our call id: our own status URLs carry `call_id`; Exotel's applets echo the Connect request's `CustomField`. */
const CALL_ID_FIELDS = ['call_id', 'CustomField'] as const;

/** A CarrierRequest as JSON on the bus (the raw body as base64: signatures are computed over it). */
interface WireRequest { method: string; url: string; headers: CarrierRequest['headers']; body: string; params: Record<string, string> }

export class CallbackRouter {
  constructor(private readonly o: {
    db: Db; commands: CallCommands; runner: Pick<CallRunner, 'live'>;
    callback(hook: string, req: CarrierRequest): Promise<CarrierAnswer>;
  }) {
    o.commands.handle('carrier_callback', async (_callId, c) => {
      const w = c.request as WireRequest;
      return this.o.callback(String(c.hook), { method: w.method, url: w.url, headers: w.headers, rawBody: Buffer.from(w.body, 'base64'), params: w.params });
    });
  }

  async route(hook: string, req: CarrierRequest): Promise<CarrierAnswer> {
    const owned = await this.#ownedElsewhere(req);
    if (owned) {
      const request: WireRequest = { method: req.method, url: req.url, headers: req.headers, body: req.rawBody.toString('base64'), params: req.params };
      const sent = await this.o.commands.send(owned.tenant_id, owned.id, { type: 'carrier_callback', hook, request }, { evenIfEnded: true });
      if (sent.delivered) return sent.result as CarrierAnswer;
    }
    return this.o.callback(hook, req);
  }

  /** The call the callback is about, when another instance runs it or ended it lately. */
  async #ownedElsewhere(req: CarrierRequest): Promise<{ id: string; tenant_id: string } | undefined> {
    // a GET (Exotel's applets) names the call in its query, a POST in its form
    const query = new URL(req.url).searchParams;
    const field = (f: string) => req.params[f] || query.get(f) || '';
    const callId = CALL_ID_FIELDS.map(field).find(Boolean) ?? '';
    const carrierIds = CARRIER_ID_FIELDS.map(field).filter(Boolean);
    if (callId && this.o.runner.live.has(callId)) return undefined;
    if (!callId && !carrierIds.length) return undefined;
    if (!callId && [...this.o.runner.live.values()].some((l) => l.row.carrier_call_id && carrierIds.includes(l.row.carrier_call_id))) return undefined;
    const r = await this.o.db.query<{ id: string; tenant_id: string }>(
      `SELECT id, tenant_id FROM calls WHERE (id = $1 OR (carrier_call_id IS NOT NULL AND carrier_call_id = ANY($2::text[])))
         AND (status = ANY($3::text[]) OR ended_at > now() - make_interval(secs => $5))
         AND instance_id IS DISTINCT FROM $4 LIMIT 1`,
      [callId, carrierIds, ACTIVE_STATUSES, this.o.commands.instanceId, CARRIER_LAST_WORD_MS / 1000]);
    return r.rows[0];
  }
}
