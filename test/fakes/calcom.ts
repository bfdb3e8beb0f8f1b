/**
 * A local Cal.com API v2 bookings endpoint, from Cal.com's create-a-booking documentation: POST
 * /v2/bookings with Authorization: Bearer cal_… and cal-api-version: 2024-08-13, body {start (UTC), eventTypeId,
 * attendee:{name, email, timeZone, phoneNumber?}, metadata?} -> 201 {status:"success", data:{id, uid, start, end,
 * …}}; errors {status:"error", error:{code, message}}. A slot already booked is refused (400, as Cal.com does
 * when the host is not available).
 */
import { randomUUID } from 'node:crypto';
import { bearer, startJsonServer, type JsonFake } from './json_server.js';

export interface CalComFake extends JsonFake { bookings: Array<Record<string, any>> }

const err = (status: number, code: string, message: string) => ({ status, body: { status: 'error', timestamp: new Date().toISOString(), path: '/v2/bookings', error: { code, message } } });

export async function startCalComFake(o: { apiKey: string; eventTypeId: number; lengthMinutes?: number; emailRequired?: boolean }): Promise<CalComFake> {
  const bookings: Array<Record<string, any>> = [];
  const fake = await startJsonServer((r) => {
    if (bearer(r) !== o.apiKey) return err(401, 'UnauthorizedException', 'Invalid API key');
    // Get my profile: GET /v2/me -> {status:"success", data:{id, email, …}}
    if (r.method === 'GET' && r.path === '/v2/me') {
      return { status: 200, body: { status: 'success', data: { id: 42, username: 'fake', email: 'host@example.com', timeZone: 'Asia/Kolkata', weekStart: 'Monday' } } };
    }
    if (r.method !== 'POST' || r.path !== '/v2/bookings') return err(404, 'NotFoundException', 'Cannot find route');
    if (r.headers['cal-api-version'] !== '2024-08-13') return err(400, 'BadRequestException', 'this fake serves cal-api-version 2024-08-13 only');
    const b = r.body ?? {};
    if (b.eventTypeId !== o.eventTypeId) return err(404, 'NotFoundException', `Event type with id=${b.eventTypeId} not found`);
    if (typeof b.start !== 'string' || !/Z$/.test(b.start) || Number.isNaN(Date.parse(b.start))) return err(400, 'BadRequestException', 'start must be a UTC ISO 8601 date');
    const a = b.attendee ?? {};
    if (!a.name || !a.timeZone) return err(400, 'BadRequestException', 'attendee.name and attendee.timeZone are required');
    if ((o.emailRequired ?? true) && !a.email) return err(400, 'BadRequestException', 'attendee.email is required');
    if (bookings.some((x) => x.start === new Date(b.start).toISOString())) return err(400, 'BadRequestException', 'User either already has booking at this time or is not available');
    const start = new Date(b.start);
    const end = new Date(start.getTime() + (o.lengthMinutes ?? 30) * 60_000);
    const data = { id: 9000 + bookings.length, uid: randomUUID(), title: 'Site visit', status: 'accepted', start: start.toISOString(), end: end.toISOString(),
      duration: o.lengthMinutes ?? 30, eventTypeId: b.eventTypeId, attendees: [{ name: a.name, email: a.email, timeZone: a.timeZone, phoneNumber: a.phoneNumber }],
      metadata: b.metadata ?? {}, createdAt: new Date().toISOString() };
    bookings.push(data);
    return { status: 201, body: { status: 'success', data } };
  });
  return Object.assign(fake, { bookings });
}
