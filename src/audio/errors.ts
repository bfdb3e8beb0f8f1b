/** Stable codes for audio input problems; callers map them to HTTP 4xx (none is retryable). */
export type AudioErrorCode =
  | 'wav_malformed'    // not RIFF/WAVE, inconsistent header, data before fmt
  | 'wav_truncated'    // ended before any audio data could be read
  | 'wav_unsupported'  // valid WAV in a format we do not decode (e.g. ADPCM, RIFX, > 8 channels)
  | 'wav_too_large'    // more bytes than limits.maxBytes
  | 'audio_too_long'   // more audio than limits.maxDurationMs
  | 'audio_empty';     // no complete sample frame

export class AudioError extends Error {
  override readonly name = 'AudioError';
  readonly retryable = false;
  constructor(readonly code: AudioErrorCode, message: string) {
    super(message);
  }
}

/** Pool failures: 'call_failed' (this call's step threw), 'task_failed' (its worker task died), 'pool_closed'. */
export class AudioPoolError extends Error {
  override readonly name = 'AudioPoolError';
  constructor(readonly code: 'call_failed' | 'task_failed' | 'pool_closed', message: string) { super(message); }
}
