/**
 * `npm run adapters`: serves the simulator implementations (carrier, speech-to-text, scripted dialog, SimVoice
 * text-to-speech, simulated tools) over gRPC on ADAPTERS_LISTEN (default 127.0.0.1:50051) and prints the bound address.
 * They speak tone code (SIM_SPEECH=tones): the simulated carrier's side channel to its callees (the agent's words)
 * does not cross gRPC, so callees served here decode the agent's SimVoice; run the service with SIM_SPEECH=tones too.
 * Point the service at it with ADAPTER_CARRIER_URL / ADAPTER_STT_URL / ADAPTER_DIALOG_URL / ADAPTER_TTS_URL /
 * ADAPTER_TOOLS_URL.
 * The simulated carrier's callees dial the media URL each call names, from this process, as a carrier's media
 * stream would (SIM_TIME_SCALE, SIM_CALLEE_THREAD as for the service).
 */
import { createSimAdapters, simCallees, startAdapterServer } from './index.js';
import { createLocalTools } from '../tools/index.js';

const listen = process.env.ADAPTERS_LISTEN || '127.0.0.1:50051';
const timeScale = Number(process.env.SIM_TIME_SCALE || 1);
const callees = simCallees({ timeScale, thread: process.env.SIM_CALLEE_THREAD === 'true' });
const server = await startAdapterServer({ ...createSimAdapters({ speech: 'tones', simCarrier: { callees, timeScale } }), tools: createLocalTools() }, listen);
process.stdout.write(`adapter server listening on ${server.address} (carrier, stt, dialog, tts, tools: simulator)\n`);

const stop = () => { void server.close().then(() => process.exit(0)); };
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
