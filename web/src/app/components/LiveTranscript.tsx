/**
 * A call's items over its live stream: the stored ones first, then each new one as it happens (transcript,
 * extracted entities, escalations, status changes). Used by the live page and the call page.
 */
import type { LiveItem } from '../../../../src/client/types.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import { LiveStream, type LiveState } from '../../shared/live';
import { ACTIVE_STATUSES, reasonText, time, words } from '../format';
import { useApp } from '../session';
import { StatusBadge } from './StatusBadge';

export interface LiveView {
  items: LiveItem[];
  state: LiveState;
  status?: string;
  entities: Record<string, string>;
  escalations: string[];
}

export function useLiveCall(callId: string | undefined): LiveView {
  const { api, session } = useApp();
  const [view, setView] = useState<LiveView>({ items: [], state: 'connecting', entities: {}, escalations: [] });
  useEffect(() => {
    setView({ items: [], state: 'connecting', entities: {}, escalations: [] });
    if (!callId) return;
    const stream = new LiveStream(api.streamUrl(callId), session.token, {
      state: (state) => setView((v) => ({ ...v, state })),
      item: (item) => setView((v) => ({
        ...v,
        // The service keeps the socket a moment after the last status; the call is over already.
        state: item.type === 'status' && !ACTIVE_STATUSES.has(item.status) && item.status !== 'scheduled' ? 'ended' : v.state,
        items: [...v.items, item],
        status: item.type === 'status' ? item.status : v.status,
        entities: item.type === 'entity' ? { ...v.entities, [item.key]: item.value } : v.entities,
        escalations: item.type === 'escalation' ? [...v.escalations, item.reason] : v.escalations,
      })),
    });
    return () => stream.close();
  }, [callId, session.token]);
  return view;
}

const STATE_TEXT: Record<LiveState, string> = {
  connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…', ended: 'call ended', expired: 'session expired',
  failed: 'could not connect', closed: 'closed',
};

export function StreamState({ state }: { state: LiveState }) {
  return <span class={`badge ${state === 'live' ? 'live' : state === 'failed' || state === 'expired' ? 'bad' : ''}`} data-testid="stream-state">{STATE_TEXT[state]}</span>;
}

/** The transcript as a chat, with status changes, escalations and transfers inline; follows the newest line. */
export function Transcript({ items, label = 'Transcript' }: { items: LiveItem[]; label?: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [items.length]);
  const shown = items.filter((i) => i.type !== 'entity' && !(i.type === 'transcript' && i.partial));
  return (
    <div class="transcript" ref={box} role="log" aria-live="polite" aria-label={label} tabIndex={0}>
      {shown.length === 0 && <p class="empty">Nothing said yet.</p>}
      <ol class="messages">
        {shown.map((i) => {
          if (i.type === 'transcript') {
            return (
              <li key={i.seq} class={`msg ${i.speaker}`} data-testid="transcript-line">
                <span class="who">{speakerName(i.speaker)} · {time(i.at)}{i.speaker === 'agent' && i.latencyMs ? ` · replied in ${Math.round(i.latencyMs)} ms` : ''}</span>
                <span class="text">{i.text}</span>
              </li>
            );
          }
          if (i.type === 'status') {
            return <li key={i.seq} class="msg system">{time(i.at)} · <StatusBadge status={i.status} />{i.ended_reason ? ` (${words(i.ended_reason)})` : ''}</li>;
          }
          if (i.type === 'escalation') {
            return <li key={i.seq} class="msg system escalation" data-testid="escalation">{time(i.at)} · Escalated: {reasonText(i.reason).toLowerCase()}</li>;
          }
          if (i.type === 'transfer') return <li key={i.seq} class="msg system">{time(i.at)} · Transferred to {i.target}</li>;
          return null;
        })}
      </ol>
    </div>
  );
}

const speakerName = (s: string) => (s === 'agent' ? 'Agent (AI)' : s === 'caller' ? 'Caller' : s === 'operator' ? 'Operator' : s);

export function Entities({ entities }: { entities: Record<string, string | number> }) {
  const keys = Object.keys(entities);
  if (!keys.length) return <p class="muted">No details extracted yet.</p>;
  return (
    <dl class="entities" data-testid="entities">
      {keys.map((k) => <div key={k}><dt>{words(k)}</dt><dd>{String(entities[k])}</dd></div>)}
    </dl>
  );
}
