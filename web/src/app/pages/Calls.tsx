/** Call history: every call of the team, newest first, filterable by outcome, a page at a time. */
import { useState } from 'preact/hooks';
import { ErrorNote, Loading, Page } from '../components/Page';
import { StatusBadge } from '../components/StatusBadge';
import { dateTime, ms, seconds, words } from '../format';
import { useApi } from '../hooks';
import type { CallList } from '../types';

const STATUSES = ['', 'in_progress', 'completed', 'no_answer', 'busy', 'failed', 'canceled', 'scheduled', 'blocked'];

export function Calls() {
  const [status, setStatus] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const q = new URLSearchParams({ limit: '25' });
  if (status) q.set('status', status);
  if (cursors.length) q.set('cursor', cursors[cursors.length - 1]!);
  const calls = useApi<CallList>(`/calls?${q}`, { pollMs: cursors.length ? undefined : 5000 });

  return (
    <Page
      title="Call history"
      actions={(
        <label>Outcome
          <select value={status} onChange={(e) => { setStatus((e.target as HTMLSelectElement).value); setCursors([]); }}>
            {STATUSES.map((s) => <option key={s} value={s}>{s ? words(s) : 'All calls'}</option>)}
          </select>
        </label>
      )}
    >
      <ErrorNote error={calls.error} />
      {!calls.data ? <Loading what="calls" /> : calls.data.data.length === 0 ? <p class="muted">No calls match.</p> : (
        <div class="table-wrap">
          <table class="striped">
            <thead>
              <tr><th scope="col">Started</th><th scope="col">To</th><th scope="col">Agent</th><th scope="col">Status</th>
                <th scope="col">Ended because</th><th scope="col">Length</th><th scope="col">Latency p50</th></tr>
            </thead>
            <tbody>
              {calls.data.data.map((c) => (
                <tr key={c.id}>
                  <td><a href={`/app/calls/${c.id}`}>{dateTime(c.created_at)}</a></td>
                  <td>{c.to}</td>
                  <td>{c.agent_id}</td>
                  <td><StatusBadge status={c.status} /></td>
                  <td>{words(c.ended_reason)}</td>
                  <td>{seconds(c.duration_seconds)}</td>
                  <td>{ms(c.metrics?.latency_p50_ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="pager">
        <button type="button" class="outline secondary" disabled={!cursors.length} onClick={() => setCursors((c) => c.slice(0, -1))}>Newer</button>
        <button type="button" class="outline secondary" disabled={!calls.data?.next_cursor}
          onClick={() => setCursors((c) => [...c, calls.data!.next_cursor!])}>Older</button>
      </div>
    </Page>
  );
}
