/**
 * Callbacks of the live carrier: /v1/carriers/<carrier>/<hook> (status changes, answering-machine results, the
 * answer document that starts the media stream, the stream address). Public, because carriers do not log in: each
 * carrier verifies its own signature (or the call's capability) over the raw request and answers 403 otherwise.
 * 404 for a carrier this instance does not use.
 */
import { z } from 'zod';
import type { Request } from 'express';
import { ApiError } from '../../errors.js';
import { CARRIER_NAMES, type CarrierName, type CarrierRequest } from '../../carriers/contract.js';
import type { AppDeps } from '../deps.js';
import type { RouteTable } from '../route_table.js';
import { parse, refuseUnstorable } from '../validate.js';

const Params = z.object({ carrier: z.enum(CARRIER_NAMES), hook: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'not a callback name') });

export function carrierRoutes(t: RouteTable, deps: AppDeps): void {
  for (const method of ['post', 'get'] as const) {
    t.add({
      method, path: '/carriers/:carrier/:hook', tag: 'carriers', auth: { kind: 'public' },
      summary: 'A callback of the live carrier (CARRIER): status, answering-machine results, the answer document, the stream address. '
        + 'Verified by the carrier\'s signature (X-Twilio-Signature, X-Plivo-Signature-V3), the call\'s key (Exotel status) or the '
        + 'deployment secret of the Exotel flow (EXOTEL_HOOK_SECRET, ?secret= or basic auth); 403 otherwise.',
      responses: { 200: 'the carrier\'s answer (XML, JSON or empty)', 403: 'not signed by the carrier', 404: 'not a carrier this instance uses' },
      handler: async (req, res) => {
        const { carrier, hook } = parse(Params, req.params, 'params');
        const answer = deps.callEngine.carrierCallback(carrier as CarrierName, hook, carrierRequest(req, deps.config.publicBaseUrl));
        if (!answer) throw new ApiError('not_found', `no ${carrier} carrier here (CARRIER is not ${carrier})`);
        const a = await answer;
        res.status(a.status).type(a.contentType ?? 'text/plain').send(a.body ?? '');
      },
    });
  }
}

/** The request as the carrier made it: the public URL it signed, the raw body, and its fields. */
function carrierRequest(req: Request, publicBaseUrl: string): CarrierRequest {
  const rawBody = (req as { rawBody?: Buffer }).rawBody ?? Buffer.alloc(0);
  const params: Record<string, string> = {};
  const type = String(req.headers['content-type'] ?? '');
  const text = rawBody.toString('utf8');
  if (/application\/x-www-form-urlencoded/i.test(type)) for (const [k, v] of new URLSearchParams(text)) params[k] = v;
  else if (/json/i.test(type) && text) {
    try {
      const json = JSON.parse(text) as unknown;
      if (json && typeof json === 'object' && !Array.isArray(json)) for (const [k, v] of Object.entries(json)) params[k] = typeof v === 'string' ? v : JSON.stringify(v);
    } catch { /* the carrier's verification refuses what it cannot read */ }
  }
  // the public address the carrier was given, with the path and query it requested (what a signature covers)
  const url = publicBaseUrl + req.originalUrl.slice(req.originalUrl.indexOf('/carriers/'));
  refuseUnstorable(params, 'body'); // a NUL in a form field would reach what the carrier stores
  return { method: req.method, url, headers: req.headers, rawBody, params };
}
