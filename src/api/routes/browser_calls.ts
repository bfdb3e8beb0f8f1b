/**
 * A call from a browser: POST /v1/browser-calls stores and answers a call (public, JWT optional, like the demo);
 * the page then opens the browser leg, WebSocket /v1/media/browser (src/carriers/browser/README.md), and proves
 * itself with the returned single-use token in its `start` message (never in a URL, where proxies and logs keep it).
 */
import { z } from 'zod';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../../errors.js';
import { DemoRateLimit } from '../../conversations/rate_limit.js';
import { BROWSER_FORMATS } from '../../carriers/browser/index.js';
import { CAPABILITY_TTL_SECONDS } from '../../auth/call_capability.js';
import { BROWSER_CALL_MAX_MS } from '../../calls/engine.js';
import { isTimeZone } from '../../leads/phone.js';

const CreateBody = z.strictObject({
  time_zone: z.string().max(64).refine(isTimeZone, 'not an IANA time zone').optional()
    .describe("the visitor's IANA zone (the page sends Intl's): spoken times are read in it; default UTC"),
});

/** anonymous browser calls one address may have going at once (on this instance): a page makes one */
export const MAX_LIVE_ANONYMOUS_CALLS_PER_ADDRESS = 2;

export function browserCallRoutes(t: RouteTable, deps: AppDeps): void {
  const anonymous = new DemoRateLimit(deps.rateLimits.perMinute(deps.config.DEMO_REQUESTS_PER_MINUTE, 'browser_call_address'), 'anonymous browser calls from this address');
  const perTenant = new DemoRateLimit(deps.rateLimits.perMinute(deps.config.DEMO_TENANT_REQUESTS_PER_MINUTE, 'browser_call_tenant'), 'browser calls of this tenant');
  const demoTenant = deps.config.DEMO_TENANT_ID === 'none' ? null : deps.config.DEMO_TENANT_ID;
  // Without this, one address could hold DEMO_REQUESTS_PER_MINUTE x 10 calls open (each up to 10 minutes) and fill
  // the demo tenant's concurrency limit for every other visitor.
  const liveByAddress = new Map<string, Set<string>>();
  const addressOf = new Map<string, string>();
  deps.calls.onCallEnded((c) => {
    const address = addressOf.get(c.id);
    if (address === undefined) return;
    addressOf.delete(c.id);
    const live = liveByAddress.get(address);
    live?.delete(c.id);
    if (live?.size === 0) liveByAddress.delete(address);
  });

  t.add({
    method: 'post', path: '/browser-calls', tag: 'Browser calls', auth: { kind: 'public', optionalJwt: true }, body: CreateBody,
    summary: 'Calls the agent from a browser. Stores an inbound call on the line "browser" (with a JWT: of its tenant; without: of the '
      + 'demo tenant DEMO_TENANT_ID) with the tenant\'s inbound defaults (agent, webhook) or its default agent, answers it, and returns '
      + '{call, media_url, token, token_expires_in, media_formats, max_duration_seconds}. The page opens the WebSocket media_url '
      + '(/v1/media/browser) within 15 s and sends {"event":"start","call_id","token","media_format"}; the call then runs like a phone '
      + 'call: the AI disclosure first, the live items on the same socket, recording, call.completed, KPIs. '
      + `Rate limits: DEMO_REQUESTS_PER_MINUTE per address and ${MAX_LIVE_ANONYMOUS_CALLS_PER_ADDRESS} calls at a time per address (anonymous), `
      + 'DEMO_TENANT_REQUESTS_PER_MINUTE per tenant (JWT); the '
      + `tenant's concurrency limit holds; a call lasts at most ${BROWSER_CALL_MAX_MS / 60_000} minutes (ended_reason max_duration).`,
    responses: {
      201: 'the call (direction inbound, to and from "browser", status ringing) and its media capability',
      400: 'bad time_zone', 429: 'rate limit, or the tenant at its concurrency limit (concurrency_limited)',
      503: 'anonymous browser calls are off (DEMO_TENANT_ID none or not a tenant)',
    },
    handler: async (req, res) => {
      const body = bodyOf(req, CreateBody);
      let tenantId: string;
      if (req.principal) {
        await perTenant.consume(req.principal.tenantId);
        tenantId = req.principal.tenantId;
      } else {
        const address = req.ip ?? 'unknown';
        if ((liveByAddress.get(address)?.size ?? 0) >= MAX_LIVE_ANONYMOUS_CALLS_PER_ADDRESS) {
          throw new ApiError('rate_limited', `at most ${MAX_LIVE_ANONYMOUS_CALLS_PER_ADDRESS} calls at a time from this address: hang up first`,
            { retryAfterSeconds: 10 });
        }
        await anonymous.consume(address);
        if (!demoTenant || !(await deps.db.query('SELECT 1 FROM tenants WHERE id = $1', [demoTenant])).rows.length) {
          throw new ApiError('unavailable', 'anonymous browser calls need a demo tenant (DEMO_TENANT_ID); sign in to call your own agent');
        }
        tenantId = demoTenant;
      }
      const { call, token, mediaUrl } = await deps.callEngine.startBrowserCall(tenantId, { timeZone: body.time_zone });
      if (!req.principal) {
        const address = req.ip ?? 'unknown';
        let live = liveByAddress.get(address);
        if (!live) liveByAddress.set(address, (live = new Set()));
        live.add(call.id);
        addressOf.set(call.id, address);
      }
      res.status(201).json({
        call, media_url: mediaUrl, token, token_expires_in: CAPABILITY_TTL_SECONDS,
        media_formats: BROWSER_FORMATS, max_duration_seconds: BROWSER_CALL_MAX_MS / 1000,
      });
    },
  });

  t.ws({
    path: '/media/browser', tag: 'Browser calls', auth: { kind: 'public' },
    summary: 'The browser leg of a call (src/carriers/browser/README.md). JSON text frames. In: start {call_id, token, media_format '
      + '{encoding pcm16|mulaw, sample_rate 16000|8000}}, media {payload: base64, at most 1 s}, mark {name}, dtmf {digit}, stop. '
      + 'Out: started {call_id, media_format} (the agent\'s audio: the same encoding at 8000 Hz), media {payload} (20 ms), mark {name} '
      + '(echo it once the audio before it has played), clear (barge-in: drop what is buffered, echo pending marks), item {item} (the '
      + 'call\'s live items, as /v1/calls/{id}/stream sends them). Close codes: 1000 call ended, 1001 server shutting down, 1003 binary '
      + 'frame or unsupported media_format, 1007 invalid message, 1008 no start within 5 s, a token that is not the call\'s (single use), '
      + 'or a call this instance does not run or that has its leg already, 1009 message over 1 MiB or media over 1 s.',
    handle: (req, socket, head) => deps.callEngine.mediaUpgrade('browser', req, socket, head),
  });
}
