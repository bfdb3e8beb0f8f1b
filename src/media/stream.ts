/**
 * What the call session sees of a carrier's media stream, whichever carrier it is (Twilio, Plivo, Exotel, the
 * simulator): caller audio as 20 ms PCM16 frames at 8 kHz (each carrier codec decodes its wire format once), marks
 * that come back when the audio before them has played, DTMF, and the end; out go 20 ms mu-law frames, marks and
 * clear. A codec per carrier maps its wire messages onto this, like pipecat's frame serializers.
 */
import type { PlayoutSink } from './playout.js';

export interface MediaHandlers {
  /** one 20 ms frame of caller audio, PCM16 at 8 kHz (160 samples), in order */
  audio(pcm: Int16Array): void;
  /** a mark we sent came back: the audio queued before it has played (or was cleared) */
  mark(name: string): void;
  dtmf(digit: string): void;
  /** the carrier stopped the stream ('stop', the caller hung up) or the socket closed; called once */
  ended(reason: 'stop' | 'closed'): void;
}

export interface MediaStream extends PlayoutSink {
  /** the carrier's id of the call (Twilio CallSid, Plivo CallUUID, Exotel CallSid) */
  readonly carrierCallId: string;
  /** parameters the call was dialed with, handed back by the carrier when the stream starts */
  readonly parameters: Record<string, string>;
  attach(handlers: MediaHandlers): void;
  /**
   * Sends keys to the other end as the carrier's own DTMF message, where it has one (Plivo); without it the tones
   * go in-band, through the playout (src/carriers/dtmf.ts).
   */
  sendDigits?(digits: string): void;
  /** we hang up this leg: the socket closes */
  close(): void;
}
