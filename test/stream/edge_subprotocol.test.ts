/**
 * Browsers cannot set Authorization on a WebSocket and the URL is no place for a token: they offer the
 * subprotocols `voicecall.v1` + `bearer.<token>`. The server selects `voicecall.v1`, never echoes the token,
 * and applies the same auth and tenant rules as for the header.
 */
import t from 'tap';
import WebSocket from 'ws';
import { API_KEY, login, startTestServer } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { collect, insertCall, otherTenant, wsUrl } from './helpers.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const deps = srv.services;
const jwt = await login(srv.baseUrl);
const other = await otherTenant(deps);
const mine = await insertCall(deps, DEV_TENANT_ID);
const theirs = await insertCall(deps, other.tenantId);
await deps.callEvents.publish(DEV_TENANT_ID, mine, { type: 'transcript', speaker: 'agent', text: 'Hello, this is an AI assistant.', latencyMs: 90, partial: false });
const url = (callId: string, q = '') => wsUrl(srv.baseUrl, `/calls/${callId}/stream${q}`);

interface Outcome { ws?: WebSocket; c?: ReturnType<typeof collect>; selected?: string | string[]; status?: number; body?: any; raw?: string }

/** Opens with the given subprotocols; resolves with the socket and the protocol header of the 101, or the refusal. */
function open(u: string, protocols: string[], headers: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(u, protocols, { headers });
    const c = collect(ws);
    let selected: string | string[] | undefined;
    ws.once('upgrade', (res) => { selected = res.headers['sec-websocket-protocol']; });
    ws.once('open', () => resolve({ ws, c, selected }));
    ws.once('unexpected-response', (_req, res) => {
      let raw = '';
      res.on('data', (d) => (raw += d));
      res.on('end', () => { let body: any; try { body = JSON.parse(raw); } catch { body = undefined; } resolve({ status: res.statusCode, body, raw }); });
    });
    ws.once('error', reject);
  });
}

t.test('a JWT or an API key offered as bearer.<token> opens the stream; the server selects voicecall.v1 only', async (t) => {
  for (const [name, token] of [['JWT', jwt], ['API key', API_KEY]]) {
    const r = await open(url(mine), ['voicecall.v1', `bearer.${token}`]);
    t.ok(r.ws, `${name}: upgraded`);
    t.equal(r.selected, 'voicecall.v1', `${name}: the 101 names voicecall.v1`);
    t.equal(r.ws!.protocol, 'voicecall.v1');
    const [first] = await r.c!.until((g) => g.length >= 1, name);
    t.match(first, { type: 'transcript', call_id: mine, seq: 1, text: 'Hello, this is an AI assistant.' }, name);
    r.ws!.close();
  }
});

t.test('the order of the offered protocols does not matter, and after_seq still applies', async (t) => {
  await deps.callEvents.publish(DEV_TENANT_ID, mine, { type: 'entity', key: 'budget', value: '50 lakh' });
  const r = await open(url(mine, '?after_seq=1'), [`bearer.${jwt}`, 'voicecall.v1']);
  t.equal(r.selected, 'voicecall.v1');
  const [first] = await r.c!.until((g) => g.length >= 1);
  t.match(first, { type: 'entity', seq: 2, key: 'budget' });
  r.ws!.close();
});

t.test('a bearer protocol without voicecall.v1 is a 400 before any upgrade, and the token is not echoed', async (t) => {
  const r = await open(url(mine), [`bearer.${jwt}`]);
  t.equal(r.status, 400);
  t.equal(r.body.code, 'validation_failed');
  t.notOk(r.raw!.includes(jwt), 'token not in the answer');
});

t.test('a bad token in the protocol is a 401 problem, never echoed', async (t) => {
  for (const bad of ['aaa.bbb.ccc', 'not-a-key-1234567890', '']) {
    const r = await open(url(mine), ['voicecall.v1', `bearer.${bad}`]);
    t.equal(r.status, 401, `"${bad}"`);
    t.equal(r.body.code, 'unauthenticated');
    if (bad) t.notOk(r.raw!.includes(bad), 'token not echoed');
  }
});

t.test('tenant isolation holds for protocol tokens: another tenant\'s call is 404, its owner gets it', async (t) => {
  const foreign = await open(url(theirs), ['voicecall.v1', `bearer.${jwt}`]);
  t.equal(foreign.status, 404);
  t.equal(foreign.body.code, 'not_found');
  const byKey = await open(url(mine), ['voicecall.v1', `bearer.${other.apiKey}`]);
  t.equal(byKey.status, 404, "the other tenant's API key cannot open my call");
  const own = await open(url(theirs), ['voicecall.v1', `bearer.${other.token}`]);
  t.ok(own.ws);
  own.ws!.close();
});

t.test('voicecall.v1 alone beside an Authorization header is selected; existing clients without protocols are unchanged', async (t) => {
  const withHeader = await open(url(mine), ['voicecall.v1'], { authorization: `Bearer ${jwt}` });
  t.equal(withHeader.selected, 'voicecall.v1');
  withHeader.ws!.close();
  const plain = await open(url(mine, `?access_token=${jwt}`), []);
  t.ok(plain.ws, 'access_token still works');
  t.equal(plain.selected, undefined, 'no protocol when none was offered');
  plain.ws!.close();
});
