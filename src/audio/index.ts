/** Audio core: codecs, resampling, framing, WAV, speech/turn/barge-in detection, worker pool. */
export { mulawDecode, mulawEncode, alawDecode, alawEncode, MULAW_DECODE_TABLE, ALAW_DECODE_TABLE, MULAW_SILENCE } from './g711.js';
export { resample, StreamingResampler } from './resample.js';
export { FrameSplitter, ByteFrameSplitter, samplesPerFrame, FRAME_MS, PHONE_FRAME_SAMPLES } from './framing.js';
export { AudioError, type AudioErrorCode } from './errors.js';
export { readWav, writeWav, wavHeader, WAV_HEADER_BYTES, concatPcm, type DecodedWav } from './wav.js';
export { WavDecoder, type WavLimits } from './wav_decoder.js';
export { parseFmt, WAVE_FORMAT, type WavFormat } from './wav_format.js';
export { BARGE_IN_VERDICTS, type AudioEvent, type AudioEventType, type BargeInVerdict } from './events.js';
export {
  createCallAudioState, stepCallAudio, stepCallAudioWith, resolveBargeIn, bargeInMinMs, CALL_FRAME_MS,
  type CallAudioSettings, type CallAudioState, type BargeInPhase,
} from './call_audio.js';
export { DEFAULT_TUNING, type DetectorTuning } from './tuning.js';
export type { VadPhase, VadState } from './vad.js';
export { analyzePcm, type AnalyzeOptions, type AnalyzeResult } from './analyze.js';
export { AudioPool, AudioPoolError, type AudioPoolOptions, type AudioPoolStats, type CallAudioChannel } from './pool.js';
