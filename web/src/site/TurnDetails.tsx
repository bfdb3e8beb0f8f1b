/** The measurements of the latest turn: processing time, where the transcript came from, speech segments. */
import type { TurnReply } from './demo';

const SOURCES: Record<string, string> = {
  text: 'typed text',
  stt_simulated: 'simulated speech-to-text',
};

export function TurnDetails({ reply }: { reply: TurnReply }) {
  const duration = reply.audio?.durationMs;
  return (
    <section class="turn-details" aria-labelledby="turn-title">
      <h3 id="turn-title">Last turn</h3>
      <dl class="facts">
        <div><dt>Processing time</dt><dd data-testid="processing-ms">{reply.processingMs.toFixed(1)} ms</dd></div>
        <div><dt>Transcript from</dt><dd>{SOURCES[reply.caller.transcript_source] ?? reply.caller.transcript_source}</dd></div>
        {reply.caller.transcript_source !== 'text' && (
          <div><dt>Heard</dt><dd data-testid="heard">{reply.caller.text ? `“${reply.caller.text}”` : 'no words recognised'}</dd></div>
        )}
        {duration !== undefined && <div><dt>Audio</dt><dd data-testid="audio-facts">{(duration / 1000).toFixed(1)} s at {reply.audio!.sampleRateHz / 1000} kHz</dd></div>}
        {reply.agent.escalation && <div><dt>Escalation</dt><dd>{reply.agent.escalation.replace(/_/g, ' ')}</dd></div>}
      </dl>
      {reply.caller.note && <p class="hint">{reply.caller.note}</p>}
      {reply.segments && duration ? (
        <figure class="segments">
          <figcaption>Speech the service detected: {reply.segments.length} segment{reply.segments.length === 1 ? '' : 's'}</figcaption>
          <div class="track" role="img" aria-label={`${reply.segments.length} speech segments in ${(duration / 1000).toFixed(1)} seconds of audio`}>
            {reply.segments.map((s) => (
              <span key={s.startMs} class="seg" style={{ left: `${(100 * s.startMs) / duration}%`, width: `${Math.max(0.5, (100 * (s.endMs - s.startMs)) / duration)}%` }} />
            ))}
          </div>
          <ol class="seg-list" data-testid="segments">
            {reply.segments.map((s) => <li key={s.startMs}>{fmt(s.startMs)} – {fmt(s.endMs)} s</li>)}
          </ol>
        </figure>
      ) : null}
    </section>
  );
}

const fmt = (ms: number) => (ms / 1000).toFixed(2);
