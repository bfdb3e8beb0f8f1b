/**
 * Leads and do-not-disturb: add a lead (the service calls it through the DND and calling-hours gates), list the
 * leads with what happened to their call; the DND list, add numbers to it, check one, and (admins) remove one.
 */
import { useState } from 'preact/hooks';
import { ErrorNote, Loading, Page } from '../components/Page';
import { StatusBadge } from '../components/StatusBadge';
import { dateTime, words } from '../format';
import { useAction, useApi } from '../hooks';
import { useApp } from '../session';
import type { Lead } from '../types';

export function Leads() {
  const leads = useApi<{ data: Lead[]; next_cursor: string | null }>('/leads?limit=50', { pollMs: 5000 });
  return (
    <Page title="Leads & DND" intro="Every lead is called once, unless its number is on the do-not-disturb list or it is outside calling hours (09:00–21:00 for the callee).">
      <div class="two-col">
        <NewLead onCreated={() => void leads.reload()} />
        <Dnd />
      </div>
      <section class="card" aria-labelledby="leads-title">
        <h2 id="leads-title">Latest leads</h2>
        <ErrorNote error={leads.error} />
        {!leads.data ? <Loading what="leads" /> : leads.data.data.length === 0 ? <p class="muted">No leads yet.</p> : (
          <div class="table-wrap">
            <table class="striped">
              <thead><tr><th scope="col">Received</th><th scope="col">Name</th><th scope="col">Phone</th><th scope="col">Source</th><th scope="col">Call</th></tr></thead>
              <tbody>
                {leads.data.data.map((l) => (
                  <tr key={l.id}>
                    <td>{dateTime(l.created_at)}</td><td>{l.name}</td><td>{l.phone}</td><td>{l.source}</td>
                    <td><LeadCall lead={l} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </Page>
  );
}

function LeadCall({ lead }: { lead: Lead }) {
  const c = lead.call;
  if (!c) return <span class="muted">–</span>;
  return (
    <>
      {c.id ? <a href={`/app/calls/${c.id}`}><StatusBadge status={c.status} /></a> : <StatusBadge status={c.status} />}
      {c.reason && <span class="muted"> {words(c.reason)}</span>}
      {c.scheduled_for && <span class="muted"> · {dateTime(c.scheduled_for)}</span>}
    </>
  );
}

function NewLead({ onCreated }: { onCreated: () => void }) {
  const { api } = useApp();
  const [f, setF] = useState({ name: '', phone: '', source: 'operator', domain: 'real_estate' });
  const [result, setResult] = useState<string>();
  const { pending, error, run } = useAction();
  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: (e.target as HTMLInputElement).value });

  async function submit(ev: Event) {
    ev.preventDefault();
    const lead = await run(() => api.post<Lead>('/leads', f));
    if (!lead) return;
    const c = lead.call;
    setResult(lead.duplicate ? `Already a lead: ${lead.name} (no second call).`
      : c?.status === 'dispatched' ? `Lead added; calling ${lead.phone} now.`
        : c?.status === 'scheduled' ? `Lead added; outside calling hours, the call is scheduled for ${dateTime(c.scheduled_for)}.`
          : c?.status === 'blocked' ? `Lead added, but ${lead.phone} is on the do-not-disturb list: it will not be called.`
            : `Lead added; call ${c?.status ?? 'not placed'}${c?.reason ? ` (${words(c.reason)})` : ''}.`);
    setF({ ...f, name: '', phone: '' });
    onCreated();
  }

  return (
    <form class="card" onSubmit={submit} aria-labelledby="new-lead-title">
      <h2 id="new-lead-title">Add a lead</h2>
      <label>Name<input required maxLength={200} value={f.name} onInput={set('name')} autocomplete="off" /></label>
      <label>Phone<input required type="tel" maxLength={40} value={f.phone} onInput={set('phone')} placeholder="+919812345678" autocomplete="off" /></label>
      <div class="grid-form">
        <label>Source<input required maxLength={100} value={f.source} onInput={set('source')} /></label>
        <label>Domain<input required maxLength={100} value={f.domain} onInput={set('domain')} /></label>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {result && <p class="notice" role="status">{result}</p>}
      <button type="submit" aria-busy={pending} disabled={pending}>Add lead</button>
    </form>
  );
}

interface DndCheck { phone: string; dnd: boolean; source: string | null; listed_at: string | null; consented: boolean; callable: boolean }
interface DndEntry { e164: string; source: string; created_at: string }

function Dnd() {
  const { api, isAdmin } = useApp();
  const [cursors, setCursors] = useState<string[]>([]);
  const listPath = `/dnd?limit=20${cursors.length ? `&cursor=${encodeURIComponent(cursors[cursors.length - 1]!)}` : ''}`;
  const list = useApi<{ data: DndEntry[]; next_cursor: string | null }>(listPath);
  const [numbers, setNumbers] = useState('');
  const [phone, setPhone] = useState('');
  const [check, setCheck] = useState<DndCheck>();
  const [note, setNote] = useState<string>();
  const { pending, error, run } = useAction();

  async function importNumbers(ev: Event) {
    ev.preventDefault();
    const all = numbers.split(/[\n,;]+/).map((n) => n.trim()).filter(Boolean);
    const r = await run(() => api.post<{ received: number; added: number; already_listed: number }>('/dnd/import', { numbers: all, source: 'operator' }));
    if (r) { setNote(`${r.added} added, ${r.already_listed} already listed.`); setNumbers(''); void list.reload(); }
  }
  async function checkNumber(ev: Event) {
    ev.preventDefault();
    const r = await run(() => api.get<DndCheck>(`/dnd/check?phone=${encodeURIComponent(phone.trim())}`));
    if (r) { setCheck(r); setNote(undefined); }
  }
  async function remove(e164: string) {
    const r = await run(() => api.del(`/dnd/${encodeURIComponent(e164)}`).then(() => true));
    if (!r) return;
    setNote(`${e164} removed from the DND list.`);
    if (check?.phone === e164) setCheck({ ...check, dnd: false, callable: true });
    void list.reload();
  }

  return (
    <section class="card" aria-labelledby="dnd-title">
      <h2 id="dnd-title">Do not disturb</h2>
      <form onSubmit={checkNumber}>
        <label for="dnd-check">Check a number</label>
        <div class="composer-row">
          <input id="dnd-check" type="tel" required value={phone} onInput={(e) => setPhone((e.target as HTMLInputElement).value)} placeholder="+919812345678" />
          <button type="submit" class="secondary" disabled={pending}>Check</button>
        </div>
      </form>
      {check && (
        <p role="status" class="dnd-result">
          <strong>{check.phone}</strong>: {check.dnd ? `on the DND list (${check.source ?? 'listed'})` : 'not on the DND list'}
          {check.dnd && check.consented ? ', but a consent lets it be called' : ''}. {check.callable ? 'It may be called.' : 'It will not be called.'}
        </p>
      )}
      <form onSubmit={importNumbers}>
        <label for="dnd-import">Add numbers to the list (one per line)</label>
        <textarea id="dnd-import" rows={3} required value={numbers} onInput={(e) => setNumbers((e.target as HTMLTextAreaElement).value)} />
        <button type="submit" class="secondary" disabled={pending}>Add to DND</button>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
      {note && <p class="notice" role="status">{note}</p>}
      <h3>On the list</h3>
      <ErrorNote error={list.error} />
      {!list.data ? <Loading what="the list" /> : list.data.data.length === 0 ? <p class="muted">The list is empty.</p> : (
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">Number</th><th scope="col">Source</th><th scope="col">Since</th>{isAdmin && <th scope="col"><span class="visually-hidden">Actions</span></th>}</tr></thead>
            <tbody>
              {list.data.data.map((d) => (
                <tr key={d.e164}>
                  <td>{d.e164}</td><td>{d.source}</td><td>{dateTime(d.created_at)}</td>
                  {isAdmin && <td><button type="button" class="outline secondary small" aria-label={`Remove ${d.e164} from DND`} onClick={() => void remove(d.e164)}>Remove</button></td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(cursors.length > 0 || list.data?.next_cursor) && (
        <div class="pager">
          <button type="button" class="outline secondary small" disabled={!cursors.length} onClick={() => setCursors((c) => c.slice(0, -1))}>Previous</button>
          <button type="button" class="outline secondary small" disabled={!list.data?.next_cursor} onClick={() => setCursors((c) => [...c, list.data!.next_cursor!])}>Next</button>
        </div>
      )}
      {!isAdmin && <p class="hint">Only admins can take a number off the list.</p>}
    </section>
  );
}
