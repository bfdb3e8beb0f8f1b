/**
 * One call: outcome, recording, transcript (live while the call runs), status timeline, per-turn latency split,
 * extracted data and tool actions, and the delivery log of its call.completed webhook.
 */
import { useRoute } from 'preact-iso';
import { BarChart } from '../components/BarChart';
import { Entities, StreamState, Transcript, useLiveCall } from '../components/LiveTranscript';
import { ErrorNote, Loading, Page } from '../components/Page';
import { StatusBadge } from '../components/StatusBadge';
import { ACTIVE_STATUSES, dateTime, ms, seconds, time, words } from '../format';
import { useApi } from '../hooks';
import type { Call, TurnMetrics, WebhookDelivery } from '../types';

export function CallPage() {
  const { params } = useRoute();
  const id = params.id!;
  const live = useLiveCall(id);
  const active = live.status ? ACTIVE_STATUSES.has(live.status) : true;
  // While the call runs its record changes; once it ended, one more read picks up the final figures.
  const call = useApi<Call>(`/calls/${encodeURIComponent(id)}`, { pollMs: active ? 2000 : undefined });
  const hooks = useApi<{ data: WebhookDelivery[] }>(`/calls/${encodeURIComponent(id)}/webhooks`, { pollMs: 5000 });
  const c = call.data;
  const ended = c && !ACTIVE_STATUSES.has(c.status);
  if (call.error && !c) return <Page title="Call"><ErrorNote error={call.error} /><p><a href="/app/calls">Back to the call history</a></p></Page>;
  if (!c) return <Page title="Call"><Loading what="the call" /></Page>;

  return (
    <Page title={`Call to ${c.to}`} intro={<><StatusBadge status={c.status} /> {c.ended_reason ? `ended: ${words(c.ended_reason)}` : ''} · <code>{c.id}</code></>}>
      <div class="call-grid">
        <section class="card" aria-labelledby="summary-title">
          <h2 id="summary-title">Summary</h2>
          <dl class="facts">
            <div><dt>Agent</dt><dd>{c.agent_id}</dd></div>
            <div><dt>Language</dt><dd>{c.language}</dd></div>
            <div><dt>Placed</dt><dd>{dateTime(c.created_at)}</dd></div>
            <div><dt>Answered</dt><dd>{c.answered_at ? time(c.answered_at) : '–'}</dd></div>
            <div><dt>Length</dt><dd>{seconds(c.duration_seconds)}</dd></div>
            <div><dt>Turns</dt><dd>{c.metrics?.turn_count ?? '–'}</dd></div>
            <div><dt>Reply latency p50 / p99</dt><dd>{ms(c.metrics?.latency_p50_ms)} / {ms(c.metrics?.latency_p99_ms)}</dd></div>
            <div><dt>Interruptions handled</dt><dd>{c.metrics?.interruptions_handled ?? '–'}</dd></div>
            <div><dt>Handed to a person</dt><dd>{c.human_escalation ? 'yes' : 'no'}</dd></div>
          </dl>
          <h3>What happened</h3>
          {c.summary ? <><p data-testid="call-summary">{c.summary}</p><p class="muted small">{summaryBy(c.summary_source)}</p></> : <p class="muted">{ended ? 'No summary for this call.' : 'Written when the call ends.'}</p>}
          <h3>Recording</h3>
          {c.recording_url
            ? <audio controls preload="none" src={c.recording_url} aria-label="Call recording (caller left, agent right)" data-testid="recording" />
            : <p class="muted">{ended ? 'No recording (the call was not answered).' : 'Available when the call ends.'}</p>}
        </section>

        <section class="card" aria-labelledby="transcript-title">
          <h2 id="transcript-title">Transcript <StreamState state={live.state} /></h2>
          <Transcript items={live.items} />
        </section>

        <section class="card" aria-labelledby="data-title">
          <h2 id="data-title">What the agent collected</h2>
          <Entities entities={c.extracted_data ?? live.entities} />
          <h3>Actions</h3>
          {c.actions_triggered?.length ? (
            <ul class="plain">{c.actions_triggered.map((a, i) => <li key={i}><code>{a.type}</code> {a.status.replace('_', ' ')}</li>)}</ul>
          ) : <p class="muted">None.</p>}
        </section>

        <section class="card" aria-labelledby="timeline-title">
          <h2 id="timeline-title">Status timeline</h2>
          <ol class="timeline">
            {(c.transitions ?? []).map((t, i) => (
              <li key={i}><time dateTime={t.at}>{time(t.at)}</time> <StatusBadge status={t.to} /> <span class="muted">{words(t.reason)}</span></li>
            ))}
          </ol>
        </section>

        <section class="card wide" aria-labelledby="latency-title">
          <h2 id="latency-title">Latency of each reply</h2>
          <TurnLatency turns={c.metrics?.turns ?? []} />
        </section>

        <section class="card wide" aria-labelledby="webhooks-title">
          <h2 id="webhooks-title">Webhook deliveries</h2>
          <ErrorNote error={hooks.error} />
          <Deliveries deliveries={hooks.data?.data} />
        </section>
      </div>
      <p><a href="/app/calls">← Call history</a></p>
    </Page>
  );
}

function TurnLatency({ turns }: { turns: TurnMetrics[] }) {
  if (!turns.length) return <p class="muted">No agent replies measured yet.</p>;
  const other = (t: TurnMetrics) => Math.max(0, t.total_ms - t.endpointing_ms - t.stt_ms - t.dialog_ms - t.tts_ms);
  const r = (v: number) => Math.round(v * 10) / 10;
  return (
    <>
      <p class="hint">From the end of the caller's speech to the agent's first audio: waiting to be sure the caller
        finished (end of turn), speech-to-text, the dialog model, text-to-speech, and the rest (pacing, queues).</p>
      <BarChart
        title="Reply latency by stage" category="Turn" stacked horizontal unit=" ms" height={Math.max(140, 34 * turns.length + 60)}
        labels={turns.map((_, i) => `Turn ${i + 1}`)}
        series={[
          { label: 'End of turn', data: turns.map((t) => r(t.endpointing_ms)) },
          { label: 'Speech-to-text', data: turns.map((t) => r(t.stt_ms)) },
          { label: 'Dialog', data: turns.map((t) => r(t.dialog_ms)) },
          { label: 'Text-to-speech', data: turns.map((t) => r(t.tts_ms)) },
          { label: 'Other', data: turns.map((t) => r(other(t))) },
        ]}
        summary={turns.map((t, i) => `turn ${i + 1}: ${Math.round(t.total_ms)} ms`).join(', ')}
      />
    </>
  );
}

function Deliveries({ deliveries }: { deliveries?: WebhookDelivery[] }) {
  if (!deliveries) return <Loading what="deliveries" />;
  if (!deliveries.length) return <p class="muted">No webhook for this call (none was configured, or the call is still running).</p>;
  return (
    <>
      {deliveries.map((d) => (
        <div key={d.webhook_id} class="delivery">
          <p><code>{d.event}</code> to <code>{d.url}</code> <StatusBadge status={d.state} /> · {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
            {d.next_attempt_at && d.state === 'pending' ? ` · next ${time(d.next_attempt_at)}` : ''}</p>
          <div class="table-wrap">
            <table>
              <thead><tr><th scope="col">#</th><th scope="col">At</th><th scope="col">Answer</th><th scope="col">Took</th></tr></thead>
              <tbody>
                {d.log.map((a) => (
                  <tr key={a.attempt}><td>{a.attempt}</td><td>{time(a.at)}</td><td>{a.status_code ?? a.error ?? '–'}</td><td>{ms(a.duration_ms)}</td></tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      ))}
    </>
  );
}

/** Who wrote a summary, in words. */
export function summaryBy(source: 'model' | 'fields' | null | undefined): string {
  return source === 'model' ? 'Written by the dialog model.' : 'Built from the fields the agent gathered.';
}
