/**
 * Live calls: the calls in progress and the latest ones, and the one selected followed over its live stream
 * (transcript, extracted details, escalations). A test call placed here is selected at once.
 */
import { useEffect, useState } from 'preact/hooks';
import { Entities, StreamState, Transcript, useLiveCall } from '../components/LiveTranscript';
import { ErrorNote, Page } from '../components/Page';
import { StatusBadge } from '../components/StatusBadge';
import { TestCallForm } from '../components/TestCallForm';
import { ACTIVE_STATUSES, ago, reasonText, words } from '../format';
import { useAction, useApi } from '../hooks';
import { useApp } from '../session';
import type { Call, CallList } from '../types';

export function LiveCalls() {
  const calls = useApi<CallList>('/calls?limit=25', { pollMs: 2000 });
  const [selected, setSelected] = useState<string>();
  const list = calls.data?.data ?? [];
  const active = list.filter((c) => ACTIVE_STATUSES.has(c.status));
  const recent = list.filter((c) => !ACTIVE_STATUSES.has(c.status)).slice(0, 8);

  // Follow the newest active call until the operator picks one.
  useEffect(() => { if (!selected && active[0]) setSelected(active[0].id); }, [active[0]?.id]);

  return (
    <Page title="Live calls" intro="Calls in progress, as they happen. Pick one to follow its conversation.">
      <div class="live-grid watch-first">
        <div class="live-side">
          <TestCallForm onPlaced={(c) => { setSelected(c.id); void calls.reload(); }} />
          <ErrorNote error={calls.error} />
          <CallPicker title="In progress" calls={active} selected={selected} onSelect={setSelected} empty="No call is in progress." />
          <CallPicker title="Recently ended" calls={recent} selected={selected} onSelect={setSelected} empty="No calls yet." />
        </div>
        <div class="live-main">
          {selected ? <Watch callId={selected} call={list.find((c) => c.id === selected)} onStatus={() => void calls.reload()} /> : (
            <div class="card"><p class="muted">Place a test call, or pick a call, to follow it here.</p></div>
          )}
        </div>
      </div>
    </Page>
  );
}

function CallPicker({ title, calls, selected, onSelect, empty }: { title: string; calls: Call[]; selected?: string; onSelect: (id: string) => void; empty: string }) {
  const id = `picker-${title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <section class="card picker" aria-labelledby={id}>
      <h2 id={id}>{title} <span class="muted">({calls.length})</span></h2>
      {calls.length === 0 ? <p class="muted">{empty}</p> : (
        <ul>
          {calls.map((c) => (
            <li key={c.id}>
              <button type="button" class={`pick ${c.id === selected ? 'selected' : ''}`} aria-pressed={c.id === selected} onClick={() => onSelect(c.id)}>
                <span class="pick-to">{c.to}</span>
                <StatusBadge status={c.status} />
                <span class="pick-meta">{c.agent_id} · {ago(c.created_at)}{c.ended_reason ? ` · ${words(c.ended_reason)}` : ''}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Watch({ callId, call, onStatus }: { callId: string; call?: Call; onStatus: () => void }) {
  const { api } = useApp();
  const live = useLiveCall(callId);
  // The lists poll; a status seen on the stream refreshes them at once so both sides agree.
  useEffect(() => { if (live.status) onStatus(); }, [live.status]);
  const { pending, error, run } = useAction();
  const status = live.status ?? call?.status ?? 'queued';
  const active = ACTIVE_STATUSES.has(status);
  return (
    <section class="card watch" aria-labelledby="watch-title" data-call-id={callId}>
      <header class="watch-head">
        <div>
          <h2 id="watch-title">{call?.to ?? 'Call'} <StatusBadge status={status} /></h2>
          <p class="muted small">Stream: <StreamState state={live.state} /> · <a href={`/app/calls/${callId}`}>Open the call's page</a></p>
        </div>
        {active && (
          <button type="button" class="secondary small" aria-busy={pending} disabled={pending}
            onClick={() => void run(() => api.post(`/calls/${callId}/transfer`, {}))}>
            Hand to a person now
          </button>
        )}
      </header>
      <ErrorNote error={error} />
      {live.escalations.length > 0 && (
        <p class="notice" role="alert" data-testid="escalation-alert">
          {reasonText(live.escalations[0])}: this call is waiting for a person in the handoff queue. <a href="/app/handoffs">Open the handoff queue</a>
        </p>
      )}
      <div class="watch-body">
        <Transcript items={live.items} />
        <aside aria-label="Extracted details">
          <h3>Details so far</h3>
          <Entities entities={live.entities} />
        </aside>
      </div>
    </section>
  );
}
