/**
 * The demo loop's reply_audio with a configured text-to-speech: the reply rendered by ElevenLabs (the fake) as a
 * 16 kHz PCM16 WAV a page can play, sample for sample what the provider sent; and when the provider fails, the
 * text reply still comes back, with reply_audio_error saying why the audio is missing.
 */
import t from 'tap';
import { readWav } from '../../src/audio/index.js';
import { api, startTestServer } from '../helpers/server.js';
import { startElevenLabsFake } from '../fakes/elevenlabs.js';
import { toneVoice } from '../fakes/g711.js';

const fake = await startElevenLabsFake({ apiKey: 'sk_demo', chunkBytes: 1001 });
const srv = await startTestServer({ env: { TTS_PROVIDER: 'elevenlabs', ELEVENLABS_API_KEY: 'sk_demo', ELEVENLABS_VOICE_ID: 'JBFqnCBsd6RMkjVDRZzb', ELEVENLABS_API_URL: fake.url } });
t.teardown(async () => { await srv.close(); await fake.close(); });

t.test('a text turn asking for reply_audio gets the ElevenLabs rendering as a 16 kHz WAV', async (t) => {
  const conv = await api(srv.baseUrl, 'POST', '/conversations', { body: {} });
  t.equal(conv.status, 201);
  const r = await api(srv.baseUrl, 'POST', `/conversations/${conv.body.id}/turns`, { body: { text: 'Hi, my name is Asha.', reply_audio: true } });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.equal(r.body.reply_audio.content_type, 'audio/wav');
  const wav = readWav(new Uint8Array(Buffer.from(r.body.reply_audio.base64, 'base64')));
  t.equal(wav.sampleRateHz, 16000);
  const req = fake.requests.at(-1)!;
  t.equal(req.outputFormat, 'pcm_16000', 'PCM asked at the rate the page plays, no resampling');
  t.equal(req.body.text, r.body.agent.text, 'the reply text is what was spoken');
  t.equal(wav.channels, 1);
  t.same([...wav.pcm], [...toneVoice(r.body.agent.text, 16000)], 'sample for sample what the provider sent');
});

t.test('a failing provider: the text reply stands, reply_audio_error says why', async (t) => {
  const conv = await api(srv.baseUrl, 'POST', '/conversations', { body: {} });
  fake.failNext({ status: 500 }, { status: 500 });
  const r = await api(srv.baseUrl, 'POST', `/conversations/${conv.body.id}/turns`, { body: { text: 'Hello there.', reply_audio: true } });
  t.equal(r.status, 200);
  t.ok(r.body.agent.text.length > 0);
  t.equal(r.body.reply_audio, undefined);
  t.match(r.body.reply_audio_error, { code: 'unavailable', message: /elevenlabs answered 500/ });
});
