/**
 * messaging_brochure -> WhatsApp Cloud API: POST {WHATSAPP_API_URL}/{phone number id}/messages with the approved
 * template WHATSAPP_TEMPLATE_NAME to the callee. The template's body parameters are the call's values named in
 * WHATSAPP_TEMPLATE_PARAMS, in order (their count must match the approved template). A message sent twice
 * reaches the person twice: only a 429/503 or Graph's throttling codes (nothing sent) are retried.
 */
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { AdapterError, type AdapterCallOptions } from '../../adapters/types.js';
import type { IntegrationAnswer, ToolIntegration, ToolInvocation } from '../../tools/types.js';
import { errorMessage, exchangeJson, trimBase } from '../http/json.js';

/** Graph error codes that mean "throttled, nothing sent": 4 app rate limit, 80007 WABA rate limit, 130429 throughput */
const THROTTLED = new Set([4, 80007, 130429]);

export interface WhatsAppOptions {
  token: string; baseUrl: string; phoneNumberId: string; templateName: string; language: string; bodyParams: string[]; log: Logger;
}

export class WhatsAppTemplate implements ToolIntegration {
  constructor(private readonly o: WhatsAppOptions) {}

  async invoke(inv: ToolInvocation, opts: AdapterCallOptions = {}): Promise<IntegrationAnswer> {
    const to = (inv.arguments.phone || inv.to || '').replace(/[^\d]/g, '');
    if (to.length < 7) throw new AdapterError('tool', 'invalid', 'messaging_brochure: no phone number to send the template to');
    const params = this.o.bodyParams.map((name) => ({ type: 'text', text: inv.arguments[name]?.trim() || '-' }));
    const r = await exchangeJson({
      name: 'whatsapp', method: 'POST', url: `${trimBase(this.o.baseUrl)}/${encodeURIComponent(this.o.phoneNumberId)}/messages`,
      headers: { authorization: `Bearer ${this.o.token}` }, idempotent: false, signal: opts.signal, secrets: [this.o.token],
      notActed: (_s, body) => THROTTLED.has((body as { error?: { code?: number } })?.error?.code ?? -1),
      body: {
        messaging_product: 'whatsapp', recipient_type: 'individual', to, type: 'template',
        template: { name: this.o.templateName, language: { code: this.o.language }, ...(params.length ? { components: [{ type: 'body', parameters: params }] } : {}) },
      },
    });
    if (r.status >= 200 && r.status < 300) return { httpStatus: r.status, result: { message_id: r.body?.messages?.[0]?.id, wa_id: r.body?.contacts?.[0]?.wa_id } };
    return { httpStatus: r.status, result: { error: errorMessage(r.body), ...(r.body?.error?.code ? { code: r.body.error.code } : {}) } };
  }
}

/** messaging slot, live when the token, the phone number id and the template name are set. */
export const whatsAppTemplate = ({ config, log }: { config: Config; log: Logger }): WhatsAppTemplate => new WhatsAppTemplate({
  token: config.WHATSAPP_API_TOKEN!, baseUrl: config.WHATSAPP_API_URL, phoneNumberId: config.WHATSAPP_PHONE_NUMBER_ID!,
  templateName: config.WHATSAPP_TEMPLATE_NAME!, language: config.WHATSAPP_TEMPLATE_LANGUAGE,
  bodyParams: (config.WHATSAPP_TEMPLATE_PARAMS ?? '').split(',').map((s) => s.trim()).filter(Boolean), log: log.child({ provider: 'whatsapp' }),
});
