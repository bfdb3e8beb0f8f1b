/**
 * An operator on a call's audio: the browser leg of the operator's softphone (src/carriers/browser) joined to the
 * call's session. The operator hears the caller; the caller hears the operator (mixed with whatever the agent
 * still says, src/handoffs/operator_mix.ts) and so does the recording; each turn the operator speaks is
 * transcribed with the configured speech-to-text and reported as speaker `operator` (operator_speech.ts).
 */
import { mulawEncode } from '../audio/index.js';
import type { SpeechToTextAdapter } from '../adapters/types.js';
import type { Logger } from '../log.js';
import type { MediaStream } from '../media/stream.js';
import type { OperatorAudioPort } from '../session/shell.js';
import { OperatorSpeech, type OperatorTurn } from './operator_speech.js';

export interface OperatorLegDeps {
  /** the session's side: the caller's frames to `ear`, the operator's voice through the port */
  join(ear: (pcm: Int16Array) => void): OperatorAudioPort;
  stt: SpeechToTextAdapter; callId: string; language: string; timeoutMs: number; log: Logger;
  /** an operator turn, transcribed (or not): to the live stream and the conversation */
  turn(t: OperatorTurn): void;
  /** the leg is gone (closed by the operator or by us) */
  left(): void;
}

export interface OperatorLeg {
  /** we hang up the leg (the operator handed the call back, or the call ended) */
  close(): void;
}

export function joinOperatorLeg(leg: MediaStream, d: OperatorLegDeps): OperatorLeg {
  const port = d.join((pcm) => leg.sendMedia(mulawEncode(pcm)));
  const stt = d.stt.open({ callId: d.callId, language: d.language, sampleRateHz: 8000 });
  const speech = new OperatorSpeech(stt, { timeoutMs: d.timeoutMs, onTurn: d.turn,
    onError: (err) => d.log.warn({ err }, "the operator's turn could not be transcribed") });
  let gone = false;
  const leave = () => {
    if (gone) return;
    gone = true;
    port.leave();
    void speech.flush().finally(() => stt.close());
    d.left();
  };
  leg.attach({
    audio: (pcm) => { if (!gone) speech.push(pcm, port.speak(pcm)); },
    mark: () => {}, dtmf: () => {},
    ended: leave,
  });
  return { close: () => { leave(); leg.close(); } };
}
