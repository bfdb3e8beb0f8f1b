/**
 * What the simulated callee hears: decodes the agent's SimVoice audio as it arrives and decides, by media
 * time, when the agent's turn is over (no agent speech for endOfTurnSilenceMs). The socket side feeds it the
 * agent audio it receives and advances it with its own 20 ms clock (a carrier hears silence as no packets):
 *
 *   ear.hear(pcm, atMs) -> [{ type: 'words', textSoFar }]            -> callee.duringAgentSpeech(textSoFar)
 *   ear.advance(nowMs)  -> [{ type: 'agent_turn_ended', text, atMs }] -> callee.reply(text)
 */
import { SimVoiceDecoder } from '../../simvoice/index.js';

export type EarEvent =
  | { type: 'words'; textSoFar: string }
  | { type: 'agent_turn_ended'; text: string; atMs: number };

/** frames quieter than this (RMS) are not agent speech; SimVoice speaks at ~2000 RMS */
const SPEECH_RMS = 300;

export class CalleeEar {
  readonly #decoder: SimVoiceDecoder;
  readonly #silenceMs: number;
  readonly #pending: EarEvent[] = [];
  #lastSpeechEndMs = -1;
  #heardSinceTurn = false;

  constructor(opts: { sampleRateHz?: number; endOfTurnSilenceMs?: number } = {}) {
    this.#decoder = new SimVoiceDecoder(opts.sampleRateHz ?? 8000);
    this.#silenceMs = opts.endOfTurnSilenceMs ?? 600;
    this.#decoder.onWord((w) => this.#pending.push({ type: 'words', textSoFar: w.text }));
  }

  /** Agent audio (PCM16) whose first sample plays at media time atMs. */
  hear(pcm: Int16Array, atMs: number): EarEvent[] {
    this.#decoder.write(pcm, atMs);
    let energy = 0;
    for (let i = 0; i < pcm.length; i++) energy += pcm[i] * pcm[i];
    if (pcm.length && energy / pcm.length >= SPEECH_RMS * SPEECH_RMS) {
      this.#lastSpeechEndMs = atMs + (pcm.length * 1000) / this.#decoder.sampleRateHz;
      this.#heardSinceTurn = true;
    }
    return this.advance(atMs);
  }

  /** Moves the callee's clock to nowMs (media time); reports the end of the agent's turn once. */
  advance(nowMs: number): EarEvent[] {
    if (this.#heardSinceTurn && nowMs - this.#lastSpeechEndMs >= this.#silenceMs) {
      this.#heardSinceTurn = false;
      const heard = this.#decoder.take();
      this.#pending.push({ type: 'agent_turn_ended', text: heard.text, atMs: nowMs });
    }
    return this.#pending.splice(0);
  }
}
