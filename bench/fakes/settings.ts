/**
 * The fakes' latencies and behaviour, from the environment, so a bench can subtract them from what it measures.
 * Every figure is in ms (or tokens/s) and is a floor: timers never fire early.
 */
const num = (name: string, dflt: number) => {
  const v = Number(process.env[name] ?? dflt);
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name} must be a non-negative number`);
  return v;
};

export interface FakeSettings {
  /** Deepgram: a final Results this long after the end of speech it detects, or after a Finalize */
  sttFinalMs: number;
  /** Deepgram: silence (audio time) after speech that ends it, when the client sets no endpointing */
  sttEndpointingMs: number;
  /** chat completions: first content token after this, then tokensPerS */
  firstTokenMs: number;
  tokensPerS: number;
  /** ElevenLabs: first audio byte after this, then audio at speedup x real time */
  ttsFirstByteMs: number;
  ttsSpeedup: number;
  /** the fake phone: silence before the caller first speaks, and after each caller turn (the agent answers) */
  callerLeadMs: number;
  callerGapMs: number;
  /** corpus scenario the caller speaks (its turns, in a loop) */
  corpusScenario: string;
  corpusDir: string;
  /** the phone's playout: a dry buffer refilled within this is an underrun inside one reply, later a new reply */
  underrunWindowMs: number;
  /** Exotel sends the caller's audio in chunks of this many ms */
  exotelChunkMs: number;
}

export function fakeSettings(): FakeSettings {
  return {
    sttFinalMs: num('FAKE_STT_FINAL_MS', 150),
    sttEndpointingMs: num('FAKE_STT_ENDPOINTING_MS', 300),
    firstTokenMs: num('FAKE_FIRST_TOKEN_MS', 300),
    tokensPerS: num('FAKE_TOKENS_PER_S', 40) || 40,
    ttsFirstByteMs: num('FAKE_TTS_FIRST_BYTE_MS', 100),
    ttsSpeedup: num('FAKE_TTS_SPEEDUP', 4) || 4,
    callerLeadMs: num('FAKE_CALLER_LEAD_MS', 4000),
    callerGapMs: num('FAKE_CALLER_GAP_MS', 7000),
    corpusScenario: process.env.FAKE_CORPUS_SCENARIO ?? 'd01_clean_t0',
    corpusDir: process.env.FAKE_CORPUS_DIR ?? '/work/shared/corpus',
    underrunWindowMs: num('FAKE_UNDERRUN_WINDOW_MS', 500),
    exotelChunkMs: num('FAKE_EXOTEL_CHUNK_MS', 100),
  };
}

/** The fixed reply of the fake model: three sentences, streamed a word (token) at a time. */
export const REPLY_TEXT = 'Thank you, that is really helpful to know. I have noted your budget and the area you like. '
  + 'Shall I book a site visit for Saturday morning?';

/** The reply as tokens: each word with its leading space, punctuation kept on the word. */
export function replyTokens(text = REPLY_TEXT): string[] {
  return text.split(/(?=\s)/);
}

/**
 * Model time (ms after the first token) until a sentence chunker can emit the first sentence: it needs the token
 * after the sentence's end (the white space that shows the sentence ended).
 */
export function firstSentenceModelMs(s: Pick<FakeSettings, 'tokensPerS'>, text = REPLY_TEXT): number {
  const tokens = replyTokens(text);
  const end = tokens.findIndex((t) => /[.!?]$/.test(t));
  const next = Math.min(tokens.length - 1, end + 1);
  return (next * 1000) / s.tokensPerS;
}
