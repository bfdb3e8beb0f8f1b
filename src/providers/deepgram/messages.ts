/**
 * Deepgram live (/v1/listen) messages: the query of the connect URL, the control messages we send, and the server
 * messages we read, parsed defensively (a malformed or unknown message is reported as such, never thrown).
 */

export interface ListenParams {
  model: string;
  /** BCP-47, as Deepgram takes it (en-IN, hi) */
  language: string;
  /** mulaw at 8 kHz (the phone path, half the bytes); linear16 at any other rate */
  encoding: 'mulaw' | 'linear16';
  sampleRateHz: number;
  /** silence (ms) after which Deepgram marks speech_final */
  endpointingMs: number;
  /** gap (ms) after the last finalized word for UtteranceEnd */
  utteranceEndMs: number;
}

export function listenUrl(base: string, p: ListenParams): string {
  const u = new URL(base);
  const q: Record<string, string> = {
    model: p.model, language: p.language, encoding: p.encoding, sample_rate: String(p.sampleRateHz), channels: '1',
    interim_results: 'true', endpointing: String(p.endpointingMs), utterance_end_ms: String(p.utteranceEndMs),
    vad_events: 'true', smart_format: 'true',
  };
  for (const [k, v] of Object.entries(q)) u.searchParams.set(k, v);
  return u.toString();
}

export const KEEP_ALIVE = JSON.stringify({ type: 'KeepAlive' });
export const FINALIZE = JSON.stringify({ type: 'Finalize' });
export const CLOSE_STREAM = JSON.stringify({ type: 'CloseStream' });

export type ServerMessage =
  | { type: 'Results'; transcript: string; confidence?: number; isFinal: boolean; speechFinal: boolean; fromFinalize: boolean;
      /** seconds of this socket's audio */
      start: number; duration: number }
  | { type: 'SpeechStarted'; timestamp: number }
  | { type: 'UtteranceEnd'; lastWordEnd: number }
  | { type: 'Metadata'; requestId?: string; duration?: number }
  | { type: 'malformed'; why: string };

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export function parseServerMessage(data: unknown, isBinary: boolean): ServerMessage {
  if (isBinary) return { type: 'malformed', why: 'binary frame' };
  let m: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(String(data));
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { type: 'malformed', why: 'not a JSON object' };
    m = parsed as Record<string, unknown>;
  } catch {
    return { type: 'malformed', why: 'not JSON' };
  }
  switch (m.type) {
    case 'Results': {
      const alt = (m.channel as { alternatives?: Array<{ transcript?: unknown; confidence?: unknown }> } | undefined)?.alternatives?.[0];
      if (!alt || typeof alt.transcript !== 'string' || !num(m.start) || !num(m.duration)) return { type: 'malformed', why: 'Results without a transcript or timing' };
      return {
        type: 'Results', transcript: alt.transcript.trim(), ...(num(alt.confidence) ? { confidence: alt.confidence } : {}),
        isFinal: m.is_final === true, speechFinal: m.speech_final === true, fromFinalize: m.from_finalize === true,
        start: m.start, duration: m.duration,
      };
    }
    case 'SpeechStarted': return num(m.timestamp) ? { type: 'SpeechStarted', timestamp: m.timestamp } : { type: 'malformed', why: 'SpeechStarted without timestamp' };
    case 'UtteranceEnd': return num(m.last_word_end) ? { type: 'UtteranceEnd', lastWordEnd: m.last_word_end } : { type: 'malformed', why: 'UtteranceEnd without last_word_end' };
    case 'Metadata': return { type: 'Metadata', ...(typeof m.request_id === 'string' ? { requestId: m.request_id } : {}), ...(num(m.duration) ? { duration: m.duration } : {}) };
    default: return { type: 'malformed', why: `unknown type ${JSON.stringify(m.type)?.slice(0, 40)}` };
  }
}
