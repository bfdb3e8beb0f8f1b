/**
 * X-Plivo-Signature-V3 checked against the vendor's code: every signature our signer makes is accepted by the
 * plivo package's validateV3Signature, over URLs with and without queries, ports, encoded characters, GET and
 * POST, repeated values; our validator accepts exactly those and refuses forged, stale-nonce and tampered ones.
 */
import t from 'tap';
import plivo from 'plivo';
import { plivoSignatureV3, verifyPlivoSignatureV3 } from '../../src/carriers/plivo/signature.js';

const TOKEN = 'MjA0YzNhNGQtZmFrZS10b2tlbg';
const cases: Array<['GET' | 'POST', string, Record<string, string | string[]>]> = [
  ['POST', 'https://voice.example.com/v1/carriers/plivo/answer?call_id=call_0123456789abcdef01234567', { CallUUID: 'c4b7', From: '918031234567', To: '919812345678', Direction: 'outbound', CallStatus: 'in-progress' }],
  ['POST', 'https://voice.example.com/v1/carriers/plivo/hangup', { HangupCause: 'NORMAL_CLEARING', Duration: '12' }],
  ['POST', 'http://127.0.0.1:40123/v1/carriers/plivo/ring?b=2&a=1&a=0', {}],
  ['POST', 'https://voice.example.com/v1/x/', {}],
  ['POST', 'https://voice.example.com:8443/v1/x?q=%C3%A9t%C3%A9+ok', { Digits: '1 2', 'Weird Key': 'a&b=c' }],
  ['GET', 'https://voice.example.com/v1/carriers/plivo/answer?z=9&a=1', { CallUUID: 'u', From: '1' }],
  ['GET', 'https://voice.example.com/v1/carriers/plivo/answer', {}],
  ['POST', 'https://voice.example.com/v1/a', { Multi: ['b', 'a'] }],
];

t.test('our signatures are the ones the plivo package validates', async (t) => {
  for (const [method, url, params] of cases) {
    const nonce = `${Math.floor(Math.random() * 1e12)}`;
    const sig = plivoSignatureV3(TOKEN, method, url, nonce, params);
    t.ok(plivo.validateV3Signature(method, url, nonce, TOKEN, sig, params), `SDK accepts ${method} ${url}`);
    t.ok(verifyPlivoSignatureV3(TOKEN, method, url, nonce, sig, params), `we accept ${method} ${url}`);
    t.ok(verifyPlivoSignatureV3(TOKEN, method, url, nonce, `bm90LW91cnM=,${sig}`, params), 'any of several comma-separated signatures');
  }
});

t.test('forged, tampered and incomplete requests are refused', async (t) => {
  const [method, url, params] = cases[0];
  const sig = plivoSignatureV3(TOKEN, method, url, 'n1', params);
  t.notOk(verifyPlivoSignatureV3('another-token', method, url, 'n1', sig, params), 'another account\'s token');
  t.notOk(verifyPlivoSignatureV3(TOKEN, method, url, 'n2', sig, params), 'another nonce');
  t.notOk(verifyPlivoSignatureV3(TOKEN, method, url.replace('call_0', 'call_1'), 'n1', sig, params), 'another call in the URL');
  t.notOk(verifyPlivoSignatureV3(TOKEN, method, url, 'n1', sig, { ...params, CallStatus: 'completed' }), 'a changed parameter');
  t.notOk(verifyPlivoSignatureV3(TOKEN, 'GET', url, 'n1', sig, params), 'another method');
  t.notOk(verifyPlivoSignatureV3(TOKEN, method, url, undefined, sig, params), 'no nonce');
  t.notOk(verifyPlivoSignatureV3(TOKEN, method, url, 'n1', undefined, params), 'no signature');
  t.notOk(verifyPlivoSignatureV3(TOKEN, 'PUT', url, 'n1', sig, params), 'a method Plivo does not sign');
  const forged = plivoSignatureV3('forger', method, url, 'n1', params);
  t.notOk(plivo.validateV3Signature(method, url, 'n1', TOKEN, forged, params), 'the SDK refuses the forgery too');
});
