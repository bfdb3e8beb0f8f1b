/**
 * What the log kept: signed recording links (?expires=…&sig=…, valid 7 days) and phone numbers
 * (/v1/dnd/check?phone=…, DELETE /v1/dnd/<number>) in request lines, and the embedded store's errors printed
 * their SQL parameters (names, numbers). All are scrubbed now, on both storage backends.
 */
import t from 'tap';
import { PassThrough } from 'node:stream';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';
import { scrubUrl } from '../../src/log.js';
import { DEV_TENANT_ID } from '../../src/services.js';

const lines: string[] = [];
const sink = new PassThrough();
sink.on('data', (c: Buffer) => lines.push(c.toString()));
const srv = await startTestServer({ env: { LOG_LEVEL: 'info' }, logStream: sink });
t.teardown(() => srv.close());
const settle = () => new Promise((r) => setTimeout(r, 50));

t.test('signed recording links: signature and expiry are not logged', async (t) => {
  const link = srv.services.callEngine.signer.url(srv.baseUrl, `call_${'e'.repeat(24)}`);
  const sig = new URL(link).searchParams.get('sig')!;
  await fetch(link);
  await settle();
  const log = lines.join('');
  t.notOk(log.includes(sig), 'the signature is absent');
  t.ok(log.includes('.wav?expires=[redacted]&sig=[redacted]'), 'the line is there, scrubbed');
});

t.test('phone numbers in query strings and paths are not logged', async (t) => {
  const token = await login(srv.baseUrl);
  await api(srv.baseUrl, 'POST', '/dnd/import', { headers: { 'x-api-key': API_KEY }, body: { numbers: ['+919812345678'] } });
  await api(srv.baseUrl, 'GET', '/dnd/check?phone=%2B919812345678', { headers: { 'x-api-key': API_KEY } });
  await api(srv.baseUrl, 'GET', '/dnd/check?phone=+91%2098123%2045678', { headers: { 'x-api-key': API_KEY } });
  await api(srv.baseUrl, 'GET', '/dnd/check?phone=09812345678', { headers: { 'x-api-key': API_KEY } });
  await api(srv.baseUrl, 'DELETE', '/dnd/%2B919812345678', { token });
  await api(srv.baseUrl, 'DELETE', '/dnd/9812345678', { token });
  await settle();
  const log = lines.join('');
  for (const fragment of ['9812345678', '98123', '45678']) t.notOk(log.includes(fragment), `${fragment} absent`);
  t.ok(log.includes('"url":"/v1/dnd/check?phone=[phone]"'));
  t.ok(log.includes('"url":"/v1/dnd/[phone]"'));
});

t.test('database errors do not carry their parameters or the values a key conflict quotes into the log', async (t) => {
  const db = srv.services.db;
  await db.query('INSERT INTO dnd_numbers (tenant_id, e164, source) VALUES ($1, $2, $3)', [DEV_TENANT_ID, '+919800011122', 'Lee Shah']);
  const err = await db.query('INSERT INTO dnd_numbers (tenant_id, e164, source) VALUES ($1, $2, $3)', [DEV_TENANT_ID, '+919800011122', 'Lee Shah'])
    .catch((e: unknown) => e);
  t.match(err, { code: '23505' }, 'a unique violation, its SQLSTATE still there for code that reads it');
  srv.services.log.error({ err }, 'unhandled error');
  await settle();
  const log = lines.join('');
  t.ok(log.includes('duplicate key value violates unique constraint'), 'the error is logged');
  for (const value of ['9800011122', 'Lee Shah']) t.notOk(log.includes(value), `${value} absent`);
});

t.test('scrubUrl keeps what is not secret', async (t) => {
  t.equal(scrubUrl('/v1/calls?limit=50&status=completed'), '/v1/calls?limit=50&status=completed');
  t.equal(scrubUrl(`/v1/calls/call_${'1234567890ab'.repeat(2)}/events?after_seq=12`), `/v1/calls/call_${'1234567890ab'.repeat(2)}/events?after_seq=12`);
  t.equal(scrubUrl('/v1/calls/x/stream?access_token=eyJ.a.b&after_seq=3'), '/v1/calls/x/stream?access_token=[redacted]&after_seq=3');
  t.equal(scrubUrl('/v1/consents/export?format=csv&phone=%2B14155550123'), '/v1/consents/export?format=csv&phone=[phone]');
});
