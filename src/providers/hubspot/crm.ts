/**
 * crm_sync -> HubSpot: upserts the callee's contact with what the call learned. With an email the documented batch
 * upsert keyed by email does it in one idempotent request; a phone-only callee (the usual case on a call) is found
 * by a search on `phone` and PATCHed, or created when there is none. Standard properties (name, phone, email) always;
 * the call's own fields (budget, intent, …) only where HUBSPOT_PROPERTY_MAP maps them to properties of the portal.
 */
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { AdapterError, type AdapterCallOptions } from '../../adapters/types.js';
import type { IntegrationAnswer, ToolIntegration, ToolInvocation } from '../../tools/types.js';
import { errorMessage, exchangeJson, trimBase, type JsonAnswer } from '../http/json.js';

export interface HubSpotOptions { apiKey: string; baseUrl: string; propertyMap: Record<string, string>; log: Logger }

/** "budget:ai_budget,intent:ai_intent" -> { budget: 'ai_budget', intent: 'ai_intent' } */
export function parsePropertyMap(spec: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (spec ?? '').split(',')) {
    const [field, prop] = pair.split(':').map((s) => s.trim());
    if (field && prop) out[field] = prop;
  }
  return out;
}

export class HubSpotCrm implements ToolIntegration {
  constructor(private readonly o: HubSpotOptions) {}

  async invoke(inv: ToolInvocation, opts: AdapterCallOptions = {}): Promise<IntegrationAnswer> {
    const a = inv.arguments;
    const phone = a.phone || inv.to;
    const email = a.email?.includes('@') ? a.email : undefined;
    const properties = this.#properties(a, phone, email);
    const call = (method: 'POST' | 'PATCH', path: string, body: unknown, idempotent: boolean) => exchangeJson({
      name: 'hubspot', method, url: `${trimBase(this.o.baseUrl)}${path}`, headers: { authorization: `Bearer ${this.o.apiKey}` },
      body, idempotent, signal: opts.signal, secrets: [this.o.apiKey],
    });
    if (email) {
      const r = await call('POST', '/crm/v3/objects/contacts/batch/upsert', { inputs: [{ idProperty: 'email', id: email, properties }] }, true);
      const contact = r.body?.results?.[0];
      return answer(r, contact ? { contact_id: String(contact.id), created: Boolean(contact.new) } : undefined);
    }
    if (!phone) throw new AdapterError('tool', 'invalid', 'crm_sync: neither a phone number nor an email identifies the contact');
    const found = await call('POST', '/crm/v3/objects/contacts/search', {
      filterGroups: [{ filters: [{ propertyName: 'phone', operator: 'EQ', value: phone }] }], properties: ['phone'], limit: 1,
    }, true);
    if (found.status !== 200) return answer(found);
    const id = found.body?.results?.[0]?.id;
    if (id !== undefined) {
      const r = await call('PATCH', `/crm/v3/objects/contacts/${encodeURIComponent(String(id))}`, { properties }, true);
      return answer(r, { contact_id: String(id), created: false });
    }
    // creating is not idempotent: only a 429/503 (nothing created) is retried
    const r = await call('POST', '/crm/v3/objects/contacts', { properties }, false);
    return answer(r, r.body?.id !== undefined ? { contact_id: String(r.body.id), created: true } : undefined);
  }

  #properties(a: Record<string, string>, phone: string | undefined, email: string | undefined): Record<string, string> {
    const p: Record<string, string> = {};
    const name = (a.customer_name ?? '').trim();
    if (name) {
      const [first, ...rest] = name.split(/\s+/);
      p.firstname = first;
      if (rest.length) p.lastname = rest.join(' ');
    }
    if (phone) p.phone = phone;
    if (email) p.email = email;
    for (const [field, prop] of Object.entries(this.o.propertyMap)) if (a[field] !== undefined && a[field] !== '') p[prop] = a[field];
    return p;
  }
}

function answer(r: JsonAnswer, ok?: Record<string, unknown>): IntegrationAnswer {
  if (r.status >= 200 && r.status < 300) return { httpStatus: r.status, ...(ok ? { result: ok } : {}) };
  return { httpStatus: r.status, result: { error: errorMessage(r.body) } };
}

/** crm slot, live when HUBSPOT_API_KEY is set. */
export const hubSpotCrm = ({ config, log }: { config: Config; log: Logger }): HubSpotCrm => new HubSpotCrm({
  apiKey: config.HUBSPOT_API_KEY!, baseUrl: config.HUBSPOT_API_URL, propertyMap: parsePropertyMap(config.HUBSPOT_PROPERTY_MAP),
  log: log.child({ provider: 'hubspot' }),
});
