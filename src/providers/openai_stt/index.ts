/** The STT_PROVIDER=openai factory: an OpenAI-compatible transcription endpoint, from the settings. */
import type { ProviderContext } from '../context.js';
import { OpenAiStt } from './adapter.js';

export { OpenAiStt, type OpenAiSttOptions } from './adapter.js';

export const createOpenAiStt = ({ config, log }: ProviderContext) => new OpenAiStt({
  apiKey: config.OPENAI_API_KEY!, baseUrl: config.OPENAI_BASE_URL, model: config.OPENAI_STT_MODEL, log: log.child({ provider: 'openai_stt' }),
});
