/**
 * The simulator's speech through the audio core's detector and the simulated STT together, frame by frame as a
 * call would run: the turn ends on the detector's TurnEnded and the transcript is complete by then; during
 * agent speech a backchannel's partial transcript recovers the barge-in, a real interruption confirms it.
 */
import t from 'tap';
import { createCallAudioState, stepCallAudio, resolveBargeIn, mulawDecode, type AudioEvent } from '../../src/audio/index.js';
import { classifyUtterance } from '../../src/session/utterance.js';
import { createSimAdapters } from '../../src/adapters/index.js';
import { simVoiceMulawFrames } from '../../src/simvoice/index.js';

const SILENCE = new Uint8Array(160).fill(0xff);

/** Plays the callee's words (then silence) into detector + STT; returns the detector events and transcripts. */
async function run(text: string, agentSpeaking: boolean) {
  const { stt } = createSimAdapters({ speech: 'tones' });
  const state = createCallAudioState({ sampleRateHz: 8000, turnDetectionTimeoutMs: 800, interruptionSensitivity: 0.8 });
  const stream = stt.open({ callId: 'c', language: 'en-US', sampleRateHz: 8000 });
  let partial = '';
  stream.onResult((r) => { if (!r.final) partial = r.text; });
  const frames = [...Array(10).fill(SILENCE), ...simVoiceMulawFrames(text, { voice: 'caller' }), ...Array(60).fill(SILENCE)];
  const events: AudioEvent[] = [];
  let pendingBargeIn = false;
  let final = '';
  for (let i = 0; i < frames.length; i++) {
    const pcm = mulawDecode(frames[i]);
    stream.write(pcm, i * 20);
    const out = stepCallAudio(state, pcm, agentSpeaking);
    events.push(...out);
    if (out.some((e) => e.type === 'BargeInDetected')) pendingBargeIn = true;
    // the session resolves a pending barge-in with the first words recognised
    if (pendingBargeIn && partial) { events.push(...resolveBargeIn(state, classifyUtterance(partial))); pendingBargeIn = false; }
    if (out.some((e) => e.type === 'TurnEnded')) { final = (await stream.finalize()).text; break; }
  }
  stream.close();
  return { types: events.map((e) => e.type), final, events };
}

t.test('a caller turn: TurnEnded after the words, transcript complete at that moment', async (t) => {
  const r = await run('My name is Anna Lee.', false);
  t.same(r.types, ['SpeechStarted', 'SpeechStopped', 'TurnEnded']);
  t.equal(r.final, 'My name is Anna Lee.');
});

t.test('"uh huh" over the agent is a backchannel: the barge-in is recovered, the agent keeps talking', async (t) => {
  const r = await run('uh huh', true);
  t.ok(r.types.includes('BargeInDetected'), 'detected as speech over the agent');
  t.match(r.events.find((e) => e.type === 'InterruptionRecovered'), { reason: 'backchannel' });
  t.notOk(r.types.includes('BargeInConfirmed'));
});

t.test('a real interruption over the agent is confirmed by its first words', async (t) => {
  const r = await run('Sorry, who is this?', true);
  t.ok(r.types.includes('BargeInConfirmed'));
  t.equal(r.final, 'Sorry, who is this?');
});
