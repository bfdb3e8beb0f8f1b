/**
 * The STT_PROVIDER=deepgram factory, from the settings. With OPENAI_API_KEY set as well, the OpenAI-compatible
 * transcription endpoint stands by for turns Deepgram cannot finalize (src/providers/stt_failover.ts).
 */
import type { ProviderContext } from '../context.js';
import { createOpenAiStt } from '../openai_stt/index.js';
import { FailoverStt } from '../stt_failover.js';
import { DeepgramStt } from './adapter.js';

export { DeepgramStt, type DeepgramSttOptions } from './adapter.js';

export function createDeepgramStt(ctx: ProviderContext) {
  const { config, log } = ctx;
  const deepgram = new DeepgramStt({ apiKey: config.DEEPGRAM_API_KEY!, url: config.DEEPGRAM_API_URL, model: config.DEEPGRAM_MODEL, log: log.child({ provider: 'deepgram' }) });
  return config.OPENAI_API_KEY ? new FailoverStt(deepgram, createOpenAiStt(ctx), log.child({ provider: 'deepgram' })) : deepgram;
}
