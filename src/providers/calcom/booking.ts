/**
 * calendar_booking -> Cal.com API v2: POST /v2/bookings (cal-api-version pinned) for the event type
 * CALCOM_EVENT_TYPE_ID at the slot the caller agreed to, sent in UTC as Cal.com requires, with the callee as
 * attendee (name, phone, time zone; an email when the call learned one, else CALCOM_DEFAULT_ATTENDEE_EMAIL).
 * Booking twice would be two bookings: only a 429/503 (nothing booked) or a refused connection is retried.
 */
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { AdapterError, type AdapterCallOptions } from '../../adapters/types.js';
import type { IntegrationAnswer, ToolIntegration, ToolInvocation } from '../../tools/types.js';
import { errorMessage, exchangeJson, trimBase } from '../http/json.js';

/** the version whose request shape this client sends (the docs: without it the endpoint falls back to an older one) */
export const CALCOM_API_VERSION = '2024-08-13';
const SLOT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?([+-]\d{2}:\d{2}|Z)$/;

export interface CalComOptions { apiKey: string; baseUrl: string; eventTypeId: number; defaultEmail?: string; log: Logger }

const validZone = (tz: string | undefined): tz is string => {
  if (!tz) return false;
  try { new Intl.DateTimeFormat('en', { timeZone: tz }); return true; } catch { return false; }
};

export class CalComBooking implements ToolIntegration {
  constructor(private readonly o: CalComOptions) {}

  async invoke(inv: ToolInvocation, opts: AdapterCallOptions = {}): Promise<IntegrationAnswer> {
    const a = inv.arguments;
    if (!a.start || !SLOT.test(a.start) || Number.isNaN(Date.parse(a.start))) {
      throw new AdapterError('tool', 'invalid', 'calendar_booking: start must be an ISO 8601 time with its offset');
    }
    const phone = a.phone || inv.to;
    const email = a.email?.includes('@') ? a.email : this.o.defaultEmail;
    const attendee = {
      name: a.customer_name?.trim() || 'Caller',
      timeZone: validZone(a.time_zone) ? a.time_zone : 'UTC',
      ...(email ? { email } : {}),
      ...(phone ? { phoneNumber: phone } : {}),
    };
    const r = await exchangeJson({
      name: 'cal.com', method: 'POST', url: `${trimBase(this.o.baseUrl)}/v2/bookings`, idempotent: false, signal: opts.signal, secrets: [this.o.apiKey],
      headers: { authorization: `Bearer ${this.o.apiKey}`, 'cal-api-version': CALCOM_API_VERSION },
      body: { start: new Date(a.start).toISOString(), eventTypeId: this.o.eventTypeId, attendee, metadata: { call_id: inv.callId } },
    });
    if (r.status >= 200 && r.status < 300) {
      const d = r.body?.data ?? {};
      return { httpStatus: r.status, result: { booking_uid: d.uid, booking_id: d.id, start: d.start, end: d.end, status: d.status } };
    }
    return { httpStatus: r.status, result: { error: errorMessage(r.body) } };
  }
}

/** calendar slot, live when CALCOM_API_KEY and CALCOM_EVENT_TYPE_ID are set. */
export const calComBooking = ({ config, log }: { config: Config; log: Logger }): CalComBooking => new CalComBooking({
  apiKey: config.CALCOM_API_KEY!, baseUrl: config.CALCOM_API_URL, eventTypeId: config.CALCOM_EVENT_TYPE_ID!,
  defaultEmail: config.CALCOM_DEFAULT_ATTENDEE_EMAIL, log: log.child({ provider: 'calcom' }),
});
