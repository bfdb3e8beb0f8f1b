/**
 * Campaigns: a list of numbers called by an agent within a daily window, at most N at a time, with retries.
 * Create one (it starts as a draft), start, pause, resume or cancel it, and watch its progress.
 */
import { useState } from 'preact/hooks';
import { ErrorNote, Loading, Page } from '../components/Page';
import { StatusBadge } from '../components/StatusBadge';
import { dateTime, words } from '../format';
import { useAction, useApi } from '../hooks';
import { useApp } from '../session';
import type { AgentList, Campaign } from '../types';

const NEXT_ACTIONS: Record<string, Array<{ action: string; label: string }>> = {
  draft: [{ action: 'start', label: 'Start' }, { action: 'cancel', label: 'Cancel' }],
  running: [{ action: 'pause', label: 'Pause' }, { action: 'cancel', label: 'Cancel' }],
  paused: [{ action: 'resume', label: 'Resume' }, { action: 'cancel', label: 'Cancel' }],
};
const PROGRESS = ['pending', 'dialing', 'retry', 'done', 'failed', 'blocked', 'canceled'];

export function Campaigns() {
  const list = useApi<{ data: Campaign[] }>('/campaigns', { pollMs: 5000 });
  const [selected, setSelected] = useState<string>();
  const [creating, setCreating] = useState(false);
  const items = list.data?.data ?? [];
  const current = selected ?? items[0]?.id;
  return (
    <Page title="Campaigns" intro="Call a list of numbers with an agent, inside a daily calling window."
      actions={<button type="button" onClick={() => setCreating(true)}>New campaign</button>}>
      <ErrorNote error={list.error} />
      {creating && <NewCampaign onDone={(id) => { setCreating(false); if (id) { setSelected(id); void list.reload(); } }} />}
      {!list.data ? <Loading what="campaigns" /> : items.length === 0 ? <p class="muted">No campaigns yet.</p> : (
        <div class="live-grid">
          <section class="card picker" aria-labelledby="campaigns-title">
            <h2 id="campaigns-title">All campaigns</h2>
            <ul>
              {items.map((c) => (
                <li key={c.id}>
                  <button type="button" class={`pick ${c.id === current ? 'selected' : ''}`} aria-pressed={c.id === current} onClick={() => setSelected(c.id)}>
                    <span class="pick-to">{c.name}</span><StatusBadge status={c.state} />
                    <span class="pick-meta">{c.agent_id} · {dateTime(c.created_at)}</span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
          <div class="live-main">{current && <CampaignDetail id={current} onChanged={() => void list.reload()} />}</div>
        </div>
      )}
    </Page>
  );
}

function CampaignDetail({ id, onChanged }: { id: string; onChanged: () => void }) {
  const { api } = useApp();
  const c = useApi<Campaign>(`/campaigns/${id}`, { pollMs: 3000 });
  const { pending, error, run } = useAction();
  if (!c.data) return <div class="card"><ErrorNote error={c.error} /><Loading what="the campaign" /></div>;
  const p = c.data.progress ?? {};
  const total = p.total ?? 0;
  const act = async (action: string) => {
    if (await run(() => api.post(`/campaigns/${id}/${action}`))) { await c.reload(); onChanged(); }
  };
  return (
    <section class="card" aria-labelledby="campaign-title">
      <h2 id="campaign-title">{c.data.name} <StatusBadge status={c.data.state} /></h2>
      <dl class="facts">
        <div><dt>Agent</dt><dd>{c.data.agent_id}</dd></div>
        <div><dt>Calling window</dt><dd>{c.data.calling_window.start}–{c.data.calling_window.end} ({c.data.timezone})</dd></div>
        <div><dt>At most at once</dt><dd>{c.data.max_concurrency}</dd></div>
        <div><dt>Calls placed</dt><dd>{p.attempts ?? 0}</dd></div>
      </dl>
      <h3>Contacts ({total})</h3>
      <ul class="progress-list">
        {PROGRESS.filter((k) => p[k]).map((k) => (
          <li key={k}>
            <span>{words(k)}</span>
            <progress value={p[k]} max={total} aria-label={`${words(k)}: ${p[k]} of ${total}`} />
            <span>{p[k]}</span>
          </li>
        ))}
      </ul>
      {error && <p class="error" role="alert">{error}</p>}
      <div class="actions">
        {(NEXT_ACTIONS[c.data.state] ?? []).map((a) => (
          <button key={a.action} type="button" class={a.action === 'cancel' ? 'outline secondary' : ''} disabled={pending} onClick={() => void act(a.action)}>{a.label}</button>
        ))}
      </div>
    </section>
  );
}

function NewCampaign({ onDone }: { onDone: (id?: string) => void }) {
  const { api } = useApp();
  const agents = useApi<AgentList>('/agents');
  const [f, setF] = useState({
    name: '', agent_id: 'default', contacts: '', start: '09:00', end: '21:00',
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'Asia/Kolkata', max_concurrency: 2, max_attempts: 2,
  });
  const { pending, error, run } = useAction();
  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: (e.target as HTMLInputElement).value });

  async function submit(ev: Event) {
    ev.preventDefault();
    // One contact per line: "+E164" or "+E164, name".
    const contacts = f.contacts.split('\n').map((l) => l.trim()).filter(Boolean).map((l) => {
      const [phone, ...rest] = l.split(',').map((x) => x.trim());
      const name = rest.join(', ');
      return name ? { phone: phone!, context: { customer_name: name } } : { phone: phone! };
    });
    const created = await run(() => api.post<Campaign>('/campaigns', {
      name: f.name, agent_id: f.agent_id, contacts, calling_window: { start: f.start, end: f.end }, timezone: f.timezone,
      max_concurrency: Number(f.max_concurrency), retry: { max_attempts: Number(f.max_attempts), backoff_minutes: 30, on: ['no_answer', 'busy'] },
    }));
    if (created) onDone(created.id);
  }

  return (
    <form class="card" onSubmit={submit} aria-labelledby="new-campaign-title">
      <h2 id="new-campaign-title">New campaign</h2>
      <div class="grid-form">
        <label>Name<input required maxLength={200} value={f.name} onInput={set('name')} /></label>
        <label>Agent
          <select value={f.agent_id} onChange={set('agent_id')}>
            {(agents.data?.data ?? []).map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
          </select>
        </label>
        <label>Calls from<input type="time" required value={f.start} onInput={set('start')} /></label>
        <label>Calls until<input type="time" required value={f.end} onInput={set('end')} /></label>
        <label>Time zone (IANA)<input required value={f.timezone} onInput={set('timezone')} /></label>
        <label>At most at once<input type="number" min={1} max={1000} required value={f.max_concurrency} onInput={set('max_concurrency')} /></label>
        <label>Tries per number<input type="number" min={1} max={10} required value={f.max_attempts} onInput={set('max_attempts')} /></label>
      </div>
      <label>Contacts, one per line: number, then optionally a comma and the name
        <textarea required rows={5} value={f.contacts} onInput={set('contacts')} placeholder={'+919812345678, Priya\n+14155550123'} />
      </label>
      {error && <p class="error" role="alert">{error}</p>}
      <div class="actions">
        <button type="submit" aria-busy={pending} disabled={pending}>Create as draft</button>
        <button type="button" class="outline secondary" onClick={() => onDone()}>Cancel</button>
      </div>
    </form>
  );
}
