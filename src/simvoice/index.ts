/** SimVoice: the simulator's in-band speech codec (text <-> speech-like PCM). See encoder.ts and decoder.ts. */
export { encodeSimVoice, simVoiceChunks, simVoiceMulawFrames, simVoiceDurationMs, SYMBOL_MS, WORD_GAP_MS, type SimVoiceOptions } from './encoder.js';
export { SimVoiceDecoder, decodeSimVoice, type DecodedWord } from './decoder.js';
