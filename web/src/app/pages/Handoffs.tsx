/**
 * The handoff queue: conversations the agent handed to a person, longest waiting first with how long they have
 * waited. Accept one (only one operator can), read what was said, chat with the visitor (their messages arrive on
 * the two-second refresh of the conversation), and resolve it: back to the agent, or closed.
 */
import { useEffect, useState } from 'preact/hooks';
import { ErrorNote, Loading, Page } from '../components/Page';
import { StatusBadge } from '../components/StatusBadge';
import { Softphone } from '../components/Softphone';
import { ago, reasonText, since, time } from '../format';
import { useAction, useApi, useCallNumbers } from '../hooks';
import { useApp } from '../session';
import { HANDOFFS_CHANGED } from '../Shell';
import type { ConversationView, Handoff } from '../types';
import { summaryBy } from './CallPage';

export function Handoffs() {
  const { session } = useApp();
  const [show, setShow] = useState<'open' | 'resolved'>('open');
  const list = useApi<{ data: Handoff[] }>(show === 'open' ? '/handoffs' : '/handoffs?handoff_state=resolved', { pollMs: 2000 });
  const [selected, setSelected] = useState<string>();
  const items = list.data?.data ?? [];
  const numbers = useCallNumbers(items.flatMap((h) => (h.call_id ? [h.call_id] : [])));
  const who = (h: Handoff) => (h.call_id && numbers[h.call_id]) || (h.call_id ? 'Phone call' : 'Web conversation');
  useEffect(() => {
    if (!selected && items[0]) setSelected((items.find((h) => h.handoff_state === 'waiting') ?? items[0]).id);
  }, [items.map((h) => h.id).join()]);

  return (
    <Page title="Handoffs" intro="Conversations the agent handed to a person. Accept one to take it over.">
      <div class="live-grid">
        <section class="card picker" aria-labelledby="queue-title">
          <h2 id="queue-title">Queue</h2>
          <div role="group" aria-label="Which handoffs" class="segmented">
            <button type="button" aria-pressed={show === 'open'} class={show === 'open' ? '' : 'outline'} onClick={() => { setShow('open'); setSelected(undefined); }}>Open</button>
            <button type="button" aria-pressed={show === 'resolved'} class={show === 'resolved' ? '' : 'outline'} onClick={() => { setShow('resolved'); setSelected(undefined); }}>Resolved</button>
          </div>
          <ErrorNote error={list.error} />
          {!list.data ? <Loading what="the queue" /> : items.length === 0 ? <p class="muted">Nobody is waiting. Escalated calls and conversations appear here.</p> : (
            <ul>
              {items.map((h) => (
                <li key={h.id}>
                  <button type="button" class={`pick ${h.id === selected ? 'selected' : ''}`} aria-pressed={h.id === selected} onClick={() => setSelected(h.id)} data-testid="handoff-item">
                    <span class="pick-to">{who(h)}</span>
                    <StatusBadge status={h.handoff_state} />
                    <span class="pick-meta">{reasonText(h.reason)} · {h.handoff_state === 'waiting'
                      ? <span data-testid="waiting-for">waiting {since(h.queued_at ?? h.created_at)}</span> : ago(h.queued_at ?? h.created_at)}{handler(h, session.userId)}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
        <div class="live-main">
          {selected ? <HandoffDetail id={selected} who={(h) => who(h)} onChanged={() => void list.reload()} /> : <div class="card"><p class="muted">Pick a handoff.</p></div>}
        </div>
      </div>
    </Page>
  );
}

function HandoffDetail({ id, who, onChanged }: { id: string; who: (h: Handoff) => string; onChanged: () => void }) {
  const { api, session, isAdmin } = useApp();
  const handoff = useApi<Handoff>(`/handoffs/${id}`, { pollMs: 2000 });
  const conv = useApi<ConversationView>(`/conversations/${id}`, { pollMs: 2000 });
  const [reply, setReply] = useState('');
  const action = useAction();
  const h = handoff.data;
  if (!h) return <div class="card"><ErrorNote error={handoff.error} /><Loading what="the handoff" /></div>;

  const mine = h.accepted_by === session.userId;
  const act = async (path: string, body?: unknown) => {
    const ok = await action.run(() => api.post(`/handoffs/${id}/${path}`, body));
    if (ok !== undefined) {
      window.dispatchEvent(new Event(HANDOFFS_CHANGED));
      await Promise.all([handoff.reload(), conv.reload()]);
      onChanged();
    }
    return ok !== undefined;
  };
  const send = async (ev: Event) => {
    ev.preventDefault();
    if (reply.trim() && (await act('reply', { text: reply.trim() }))) setReply('');
  };

  return (
    <section class="card watch" aria-labelledby="handoff-title">
      <header class="watch-head">
        <div>
          <h2 id="handoff-title">{who(h)} <StatusBadge status={h.handoff_state} /></h2>
          <p class="muted small">
            {reasonText(h.reason)} · since {time(h.queued_at ?? h.created_at)}
            {handler(h, session.userId)}
            {h.call_id && <> · <a href={`/app/calls/${h.call_id}`}>the call</a></>}
          </p>
        </div>
        <div class="actions">
          {h.handoff_state === 'waiting' && <button type="button" onClick={() => void act('accept')} disabled={action.pending}>Accept</button>}
          {h.handoff_state === 'with_operator' && (mine || isAdmin) && (<>
            <button type="button" class="secondary" onClick={() => void act('resolve', { then: 'agent' })} disabled={action.pending}>Hand back to the agent</button>
            <button type="button" class="secondary outline" onClick={() => void act('resolve', { then: 'close' })} disabled={action.pending}>Resolve and close</button>
          </>)}
        </div>
      </header>
      <ErrorNote error={action.error ?? conv.error} />
      {h.call_id && h.handoff_state === 'with_operator' && mine && <Softphone key={id} handoffId={id} />}
      <div class="transcript" role="log" aria-live="polite" aria-label="Conversation" tabIndex={0}>
        <ol class="messages">
          {(conv.data?.messages ?? []).map((m) => (
            <li key={m.id} class={`msg ${m.role}`} data-testid="handoff-message">
              <span class="who">{m.role === 'agent' ? 'Agent (AI)' : m.role === 'caller' ? 'Caller' : m.role === 'operator' ? 'Operator' : m.role} · {time(m.at)}</span>
              <span class="text">{m.text || (m.role === 'operator' && m.meta?.spoken ? <em>(spoken; not transcribed)</em> : '')}</span>
            </li>
          ))}
        </ol>
      </div>
      {conv.data?.summary && (
        <div data-testid="conversation-summary">
          <h3>Summary</h3>
          <p>{conv.data.summary}</p>
          <p class="muted small">{summaryBy(conv.data.summary_source)}</p>
        </div>
      )}
      {h.handoff_state === 'with_operator' && mine && (
        <form class="composer" onSubmit={send}>
          <label for="reply">Your reply</label>
          <div class="composer-row">
            <input id="reply" value={reply} maxLength={2000} autocomplete="off" onInput={(e) => setReply((e.target as HTMLInputElement).value)} />
            <button type="submit" disabled={!reply.trim() || action.pending}>Send reply</button>
          </div>
          <p class="hint">Your reply {h.call_id ? 'is spoken to the caller' : "reaches the visitor's page"}, and their words appear here. When you are done, hand the conversation back to the agent or close it.</p>
        </form>
      )}
      {h.handoff_state === 'waiting' && <p class="hint">Accept to take over: the handoff becomes yours, and only you can reply.</p>}
      {h.handoff_state === 'with_operator' && !mine && <p class="hint">Another operator has taken this one.</p>}
      {h.handoff_state === 'resolved' && <p class="hint">Resolved: {h.resolution === 'agent' ? 'the agent has the conversation again' : 'the conversation is closed'}.</p>}
      {h.history && h.history.length > 0 && (
        <details>
          <summary>History</summary>
          <ol class="timeline">{h.history.map((e, i) => <li key={i}>{time(e.at)} · {e.action} ({e.from_state} → {e.to_state})</li>)}</ol>
        </details>
      )}
    </section>
  );
}

/** Who has the handoff, in a few words ("" while nobody does). */
function handler(h: Handoff, me: string): string {
  if (!h.accepted_by) return '';
  const who = h.accepted_by === me ? 'you' : 'a colleague';
  return h.handoff_state === 'resolved' ? ` · handled by ${who}` : ` · taken by ${who}`;
}
