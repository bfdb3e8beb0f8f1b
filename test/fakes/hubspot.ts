/**
 * A local HubSpot CRM contacts API (v3), from HubSpot's documentation: Bearer private-app token; POST
 * /crm/v3/objects/contacts/search ({filterGroups:[{filters:[{propertyName, operator:"EQ", value}]}]} ->
 * {total, results:[{id, properties, …}]}), POST /crm/v3/objects/contacts (201 with the new object), PATCH
 * /crm/v3/objects/contacts/{id}, POST /crm/v3/objects/contacts/batch/upsert ({inputs:[{idProperty, id,
 * properties}]} -> {status:"COMPLETE", results:[{id, new, properties}]}). Errors as {status:"error", message,
 * category}; a property the portal does not have is a 400 VALIDATION_ERROR, as on a real portal.
 */
import { bearer, startJsonServer, type JsonFake } from './json_server.js';

export interface HubSpotFake extends JsonFake { contacts: Map<string, Record<string, string>> }

const err = (status: number, category: string, message: string) => ({ status, body: { status: 'error', message, correlationId: 'c0ffee', category } });

export async function startHubSpotFake(o: { token: string; properties?: string[] }): Promise<HubSpotFake> {
  const known = new Set(['firstname', 'lastname', 'phone', 'email', ...(o.properties ?? [])]);
  const contacts = new Map<string, Record<string, string>>();
  let next = 101;
  const now = () => new Date().toISOString();
  const obj = (id: string) => ({ id, properties: { ...contacts.get(id), hs_object_id: id }, createdAt: now(), updatedAt: now(), archived: false });
  const invalid = (props: Record<string, unknown> = {}) => Object.keys(props).find((k) => !known.has(k));
  const fake = await startJsonServer((r) => {
    if (bearer(r) !== o.token) return err(401, 'INVALID_AUTHENTICATION', 'Authentication credentials not found.');
    const path = r.path.split('?')[0];
    // List contacts: GET /crm/v3/objects/contacts?limit=N -> {results, paging?}
    if (r.method === 'GET' && path === '/crm/v3/objects/contacts') {
      const limit = Number(new URLSearchParams(r.path.split('?')[1] ?? '').get('limit') ?? 10);
      return { status: 200, body: { results: [...contacts.keys()].slice(0, limit).map(obj) } };
    }
    if (r.method === 'POST' && path === '/crm/v3/objects/contacts/search') {
      const f = r.body?.filterGroups?.[0]?.filters?.[0];
      if (!f || f.operator !== 'EQ') return err(400, 'VALIDATION_ERROR', 'filterGroups required');
      const hits = [...contacts.keys()].filter((id) => contacts.get(id)![f.propertyName] === f.value).map(obj);
      return { status: 200, body: { total: hits.length, results: hits.slice(0, r.body.limit ?? 10) } };
    }
    if (r.method === 'POST' && path === '/crm/v3/objects/contacts') {
      const bad = invalid(r.body?.properties);
      if (bad) return err(400, 'VALIDATION_ERROR', `Property values were not valid: ${bad} does not exist`);
      const id = String(next++);
      contacts.set(id, { ...r.body.properties });
      return { status: 201, body: obj(id) };
    }
    const m = /^\/crm\/v3\/objects\/contacts\/(\d+)$/.exec(path);
    if (r.method === 'PATCH' && m) {
      if (!contacts.has(m[1])) return err(404, 'OBJECT_NOT_FOUND', 'resource not found');
      const bad = invalid(r.body?.properties);
      if (bad) return err(400, 'VALIDATION_ERROR', `Property values were not valid: ${bad} does not exist`);
      Object.assign(contacts.get(m[1])!, r.body.properties);
      return { status: 200, body: obj(m[1]) };
    }
    if (r.method === 'POST' && path === '/crm/v3/objects/contacts/batch/upsert') {
      const results = [];
      for (const input of r.body?.inputs ?? []) {
        const bad = invalid(input.properties);
        if (bad) return err(400, 'VALIDATION_ERROR', `Property values were not valid: ${bad} does not exist`);
        let id = [...contacts.keys()].find((k) => contacts.get(k)![input.idProperty] === input.id);
        const created = id === undefined;
        id ??= String(next++);
        contacts.set(id, { ...contacts.get(id), [input.idProperty]: input.id, ...input.properties });
        results.push({ ...obj(id), new: created });
      }
      return { status: 200, body: { status: 'COMPLETE', results, startedAt: now(), completedAt: now() } };
    }
    return err(404, 'OBJECT_NOT_FOUND', 'no such endpoint');
  });
  return Object.assign(fake, { contacts });
}
