/**
 * A streaming recogniser with a whole-utterance one standing by (Deepgram, then the OpenAI-compatible endpoint
 * when OPENAI_API_KEY is set too). The backup keeps the turn's audio; a turn the primary cannot finalize because
 * it failed (its socket is gone for good, the key was refused) is transcribed from that audio instead, so the call
 * goes on listening. A deadline or an abort is not a failure of the primary: it is passed on, as the turn is over.
 */
import type { AdapterCallOptions, SpeechToTextAdapter, SttStream, TranscriptResult } from '../adapters/types.js';
import { AdapterError } from '../adapters/types.js';
import type { Logger } from '../log.js';
import type { BufferedSttStream, OpenAiStt } from './openai_stt/adapter.js';

const passedOn = (err: unknown, opts?: AdapterCallOptions) =>
  opts?.signal?.aborted || (err instanceof AdapterError && (err.code === 'timeout' || err.code === 'canceled'));

export class FailoverStt implements SpeechToTextAdapter {
  constructor(private readonly primary: SpeechToTextAdapter, private readonly backup: OpenAiStt, private readonly log: Logger) {}

  open(opts: { callId: string; language: string; sampleRateHz: number }): SttStream {
    return new FailoverStream(this.primary.open(opts), this.backup.open(opts), this.log.child({ call_id: opts.callId }));
  }

  async transcribe(pcm: Int16Array, opts: { language: string; sampleRateHz: number } & AdapterCallOptions): Promise<TranscriptResult> {
    try {
      return await this.primary.transcribe(pcm, opts);
    } catch (err) {
      if (passedOn(err, opts)) throw err;
      this.log.warn({ err: (err as Error).message }, 'speech-to-text failed over to the transcription endpoint');
      return this.backup.transcribe(pcm, opts);
    }
  }
}

class FailoverStream implements SttStream {
  constructor(private readonly primary: SttStream, private readonly backup: BufferedSttStream, private readonly log: Logger) {}

  write(pcm: Int16Array, atMs: number): void { this.primary.write(pcm, atMs); this.backup.write(pcm, atMs); }

  async finalize(opts?: AdapterCallOptions): Promise<TranscriptResult> {
    const turn = this.backup.cut(); // the turn's audio as it ends now: the next turn may end before the primary answers
    try {
      return await this.primary.finalize(opts);
    } catch (err) {
      if (passedOn(err, opts)) throw err;
      this.log.warn({ err: (err as Error).message }, 'speech-to-text turn failed over to the transcription endpoint');
      return this.backup.hear(turn, opts);
    }
  }

  onResult(listener: (r: TranscriptResult) => void): void { this.primary.onResult(listener); this.backup.onResult(listener); }

  close(): void { this.primary.close(); this.backup.close(); }
}
