/**
 * What the caller hears while an operator is on the call's audio: the operator's 20 ms frames go to the caller's
 * leg as they arrive, unless the agent's playout is sending audio (an operator's typed reply being spoken), in which
 * case they wait here and are mixed into the agent's next frames, one operator frame per agent frame. The two never
 * take turns on the line: both are heard, and neither is delayed by more than the wait (MAX_WAITING frames).
 */
import { mulawDecode, mulawEncode } from '../audio/index.js';

/** operator frames held for mixing at most (10 = 200 ms); older ones are dropped, a late voice is worse than a gap */
export const MAX_WAITING = 10;

export class OperatorMix {
  readonly #waiting: Int16Array[] = [];
  /** frames of the operator dropped because they waited too long (the agent's audio outpaced them) */
  dropped = 0;

  /**
   * An operator frame (PCM16, 8 kHz, 20 ms) arrived. `agentSending`: the playout has agent audio going out now.
   * Returns the frames to send to the caller at once (those waiting first, in order), or none when they wait.
   */
  arrive(pcm: Int16Array, agentSending: boolean): Int16Array[] {
    if (agentSending) {
      this.#waiting.push(pcm);
      if (this.#waiting.length > MAX_WAITING) { this.#waiting.shift(); this.dropped++; }
      return [];
    }
    return [...this.#waiting.splice(0), pcm];
  }

  /**
   * An agent frame (mu-law) about to go to the caller: the next waiting operator frame mixed in, if any. Returns
   * what to send, and the operator frame it carries (for the recording).
   */
  mixInto(agent: Uint8Array): { frame: Uint8Array; operator?: Int16Array } {
    const operator = this.#waiting.shift();
    return operator ? { frame: mulawEncode(mixPcm(mulawDecode(agent), operator)), operator } : { frame: agent };
  }

  get waiting(): number { return this.#waiting.length; }
}

/**
 * What the operator hears: the caller, and the agent's own audio (an operator's typed reply being spoken, a hold
 * message) mixed in frame by frame. Agent frames arrive at the playout's pace, caller frames at the line's; each
 * caller frame carries the oldest agent frame waiting, and at most MAX_WAITING wait (a late agent is dropped).
 */
export class OperatorEar {
  readonly #agent: Int16Array[] = [];

  /** an agent frame (mu-law, without the operator's own voice) went to the caller */
  agentSent(frame: Uint8Array): void {
    this.#agent.push(mulawDecode(frame));
    if (this.#agent.length > MAX_WAITING) this.#agent.shift();
  }

  /** a caller frame: what the operator hears with it */
  heard(caller: Int16Array): Int16Array {
    const agent = this.#agent.shift();
    return agent ? mixPcm(caller, agent) : caller;
  }
}

/** a + b, sample by sample, clipped to PCM16 (the shorter one is padded with silence) */
export function mixPcm(a: Int16Array, b: Int16Array): Int16Array {
  const out = new Int16Array(Math.max(a.length, b.length));
  for (let i = 0; i < out.length; i++) out[i] = Math.max(-32768, Math.min(32767, (a[i] ?? 0) + (b[i] ?? 0)));
  return out;
}
