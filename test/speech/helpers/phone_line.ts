/** Caller lines in an offline voice as a telephone line carries them (G.711 mu-law at 8 kHz), for the ears' tests. */
import { mulawDecode, mulawEncode, resample } from '../../../src/audio/index.js';
import { OfflineTts } from '../../../src/speech/voice/tts.js';

/** Words in an offline voice through a phone line, nothing around them, 8 kHz PCM16. */
export async function phoneWords(text: string, voice = 'kal16'): Promise<Int16Array> {
  const parts: Int16Array[] = [];
  for await (const c of new OfflineTts().synthesize({ text, voice, language: 'en', sampleRateHz: 16000 })) parts.push(c);
  return mulawDecode(mulawEncode(resample(Int16Array.from(parts.flatMap((p) => [...p])), 16000, 8000)));
}

/** A line in an offline voice through a phone line: 0.3 s quiet, the speech, 0.5 s quiet, 8 kHz PCM16. */
export async function phoneLine(text: string, voice: string): Promise<Int16Array> {
  const speech = await phoneWords(text, voice);
  const pcm = new Int16Array(2400 + speech.length + 4000);
  pcm.set(speech, 2400);
  return pcm;
}
