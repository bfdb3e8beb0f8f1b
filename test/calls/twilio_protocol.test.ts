/** Twilio Media Streams messages (Twilio's documented samples) and X-Twilio-Signature vectors (twilio-node's published vectors). */
import t from 'tap';
import { clearMessage, markMessage, mediaMessage, parseTwilioMessage, TwilioProtocolError } from '../../src/carriers/twilio/codec.js';
import { twilioSignature, verifyTwilioSignature } from '../../src/carriers/twilio/signature.js';

const SID = 'MZXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX';

t.test('inbound samples parse', async (t) => {
  t.same(parseTwilioMessage('{ "event": "connected", "protocol": "Call", "version": "1.0.0" }'), { event: 'connected', protocol: 'Call', version: '1.0.0' });
  const start = parseTwilioMessage(JSON.stringify({ event: 'start', sequenceNumber: '1', start: { accountSid: 'ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX', streamSid: SID,
    callSid: 'CAXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX', tracks: ['inbound'], customParameters: { tenant: 'acme', agent_id: 'a_123' },
    mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } }, streamSid: SID }));
  t.match(start, { event: 'start', start: { customParameters: { agent_id: 'a_123' }, mediaFormat: { sampleRate: 8000 } } });
  const media = parseTwilioMessage(JSON.stringify({ event: 'media', sequenceNumber: '3', media: { track: 'inbound', chunk: '1', timestamp: '5',
    payload: '/////////////////////////////////////////////////w==' }, streamSid: SID }));
  t.equal(media.event === 'media' && Buffer.from(media.media.payload, 'base64').every((b) => b === 0xff), true);
  t.match(parseTwilioMessage(JSON.stringify({ event: 'dtmf', streamSid: SID, sequenceNumber: '5', dtmf: { track: 'inbound_track', digit: '1' } })), { dtmf: { digit: '1' } });
  t.match(parseTwilioMessage(JSON.stringify({ event: 'mark', sequenceNumber: '4', streamSid: SID, mark: { name: 'resp-7/epoch-2/seq-13' } })), { mark: { name: 'resp-7/epoch-2/seq-13' } });
  t.match(parseTwilioMessage(JSON.stringify({ event: 'stop', sequenceNumber: '5', stop: { accountSid: 'AC1', callSid: 'CA1' }, streamSid: SID })), { event: 'stop' });
});

t.test('invalid inbound is refused', async (t) => {
  for (const bad of ['nope', '[]', '{"event":"hello"}', '{"event":"media","sequenceNumber":"1","streamSid":"x"}',
    '{"event":"media","sequenceNumber":"1","streamSid":"x","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":5}}',
    '{"event":"media","sequenceNumber":1,"streamSid":"x","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":"/w=="}}', '{"event":"mark","sequenceNumber":"1","streamSid":"x","mark":{}}']) {
    t.throws(() => parseTwilioMessage(bad), TwilioProtocolError, bad);
  }
});

t.test('outbound messages carry exactly the documented keys', async (t) => {
  const frame = new Uint8Array(160).map((_, i) => (i * 37) & 0xff);
  t.equal(mediaMessage(SID, frame), JSON.stringify({ event: 'media', streamSid: SID, media: { payload: Buffer.from(frame).toString('base64') } }),
    'the hand-built text is byte for byte what JSON.stringify gives');
  t.equal(mediaMessage('MZ"\\x', frame.subarray(3, 5)), JSON.stringify({ event: 'media', streamSid: 'MZ"\\x', media: { payload: Buffer.from(frame.subarray(3, 5)).toString('base64') } }),
    'a streamSid needing escapes, and a frame that is a view at an offset');
  const m = JSON.parse(mediaMessage(SID, new Uint8Array(160).fill(0xff)));
  t.same(Object.keys(m), ['event', 'streamSid', 'media']);
  t.same(Object.keys(m.media), ['payload']);
  t.equal(m.media.payload.length, 216, '160 bytes = 216 base64 chars');
  t.same(JSON.parse(markMessage(SID, 'r1/e0/f5')), { event: 'mark', streamSid: SID, mark: { name: 'r1/e0/f5' } });
  t.same(JSON.parse(clearMessage(SID)), { event: 'clear', streamSid: SID });
});

t.test('X-Twilio-Signature reference vectors', async (t) => {
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const params = { CallSid: 'CA1234567890ABCDE', Caller: '+14158675309', Digits: '1234', From: '+14158675309', To: '+18005551212' };
  t.equal(twilioSignature('12345', url, params), 'RSOYDt4T1cUTdK1PDd93/VVr8B8=');
  t.equal(twilioSignature('12345', url, { ...params, Caller: '+12349013030', From: '+12349013030' }), '0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
  t.equal(twilioSignature('12345', url, { Sid: 'CA123', SidAccount: 'AC123', Digits: ['5678', '1234', '1234'] }), 'IK+Dwps556ElfBT0I3Rgjkr1wJU=');
  t.equal(twilioSignature('12345', 'https://MyCompany.com/myapp.php?foo=1&bar=2', params), 'g9IN/x4Cft2g517EjYvEvM/W7LU=');
  t.equal(twilioSignature('12345', 'https://MyCompany.com:1234/myapp.php?foo=1&bar=2', params), 'PCqOZm8cnu/L6+u5i5fuEd+Iac4=');
  t.ok(verifyTwilioSignature('12345', url, 'RSOYDt4T1cUTdK1PDd93/VVr8B8=', params));
  t.notOk(verifyTwilioSignature('12345', url, '0/KCTR6DLpKmkAf8muzZqo1nDgQ=', params));
  t.notOk(verifyTwilioSignature('12345', url, undefined, params));
  const wss = 'wss://voice.example.com/v1/media/twilio';
  t.ok(verifyTwilioSignature('tok', wss, twilioSignature('tok', 'wss://voice.example.com:443/v1/media/twilio')), 'with or without the default port');
});
