/**
 * A local WhatsApp Cloud API (Graph) messages endpoint, from Meta's docs and official Node SDK: POST
 * /{version}/{phone-number-id}/messages with Authorization: Bearer, body {messaging_product:"whatsapp",
 * recipient_type:"individual", to, type:"template", template:{name, language:{code}, components?}} -> 200
 * {messaging_product, contacts:[{input, wa_id}], messages:[{id:"wamid.…"}]}; errors {error:{message, type, code,
 * fbtrace_id}} (132001 unknown template, 131008 parameter count, 190 bad token, 130429 throughput throttled).
 */
import { randomBytes } from 'node:crypto';
import { bearer, startJsonServer, type JsonFake } from './json_server.js';

export interface WhatsAppFake extends JsonFake { sent: Array<Record<string, any>> }

export const graphError = (status: number, code: number, message: string, type = 'OAuthException') =>
  ({ status, body: { error: { message, type, code, fbtrace_id: 'AbCdEf123' } } });

export async function startWhatsAppFake(o: { token: string; phoneNumberId: string; templates: Record<string, number> }): Promise<WhatsAppFake> {
  const sent: Array<Record<string, any>> = [];
  const fake = await startJsonServer((r) => {
    if (bearer(r) !== o.token) return graphError(401, 190, 'Invalid OAuth access token - Cannot parse access token');
    // The phone number node: GET /{version}/{phone-number-id} -> {verified_name, display_phone_number, id, …}
    const node = /^\/v\d+\.\d+\/([^/?]+)$/.exec(r.path);
    if (r.method === 'GET' && node) {
      if (node[1] !== o.phoneNumberId) return graphError(400, 100, `Unsupported get request. Object with ID '${node[1]}' does not exist`, 'GraphMethodException');
      return { status: 200, body: { verified_name: 'Fake Realty', display_phone_number: '+91 98123 45678', id: o.phoneNumberId, quality_rating: 'GREEN' } };
    }
    const m = /^\/v\d+\.\d+\/([^/]+)\/messages$/.exec(r.path);
    if (r.method !== 'POST' || !m) return graphError(400, 100, 'Unsupported request', 'GraphMethodException');
    if (m[1] !== o.phoneNumberId) return graphError(400, 100, `Unsupported post request. Object with ID '${m[1]}' does not exist`, 'GraphMethodException');
    const b = r.body ?? {};
    if (b.messaging_product !== 'whatsapp' || b.type !== 'template' || !/^\d{7,15}$/.test(String(b.to))) return graphError(400, 100, '(#100) Invalid parameter');
    const params: number | undefined = o.templates[b.template?.name];
    if (params === undefined || !b.template?.language?.code) return graphError(404, 132001, '(#132001) Template name does not exist in the translation');
    const given = b.template.components?.find((c: { type: string }) => c.type === 'body')?.parameters?.length ?? 0;
    if (given !== params) return graphError(400, 131008, '(#131008) Required parameter is missing');
    sent.push(b);
    return { status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: b.to, wa_id: b.to }], messages: [{ id: `wamid.${randomBytes(12).toString('base64url')}` }] } };
  });
  return Object.assign(fake, { sent });
}
