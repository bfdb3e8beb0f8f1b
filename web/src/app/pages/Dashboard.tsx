/**
 * Overview: the four KPIs with their rates, and the analytics (calls by day and by status, turn latency per
 * agent), for a chosen period and agent. Refreshes every few seconds (ETag-validated, so cheap when unchanged).
 */
import { useMemo, useState } from 'preact/hooks';
import { BarChart } from '../components/BarChart';
import { ErrorNote, Loading, Page } from '../components/Page';
import { ms, percent, rate, seconds, time, words } from '../format';
import { useApi } from '../hooks';
import type { AgentList, Analytics, Kpis } from '../types';

const RANGES = [
  { id: '1d', label: 'Last 24 hours', days: 1 },
  { id: '7d', label: 'Last 7 days', days: 7 },
  { id: '30d', label: 'Last 30 days', days: 30 },
];

export function Dashboard() {
  const [rangeId, setRangeId] = useState('7d');
  const [agentId, setAgentId] = useState('');
  const range = RANGES.find((r) => r.id === rangeId)!;
  // The period is fixed when chosen, not moved on every poll: repeated reads then share one ETag, and its end
  // lies a day ahead so calls placed while the page is open still count.
  const { from, query } = useMemo(() => {
    const now = Math.floor(Date.now() / 60_000) * 60_000;
    const f = new Date(now - range.days * 86_400_000);
    const to = new Date(now + 86_400_000);
    const q = new URLSearchParams({ from: f.toISOString(), to: to.toISOString() });
    if (agentId) q.set('agent_id', agentId);
    return { from: f, query: q.toString() };
  }, [rangeId, agentId]);
  const kpis = useApi<Kpis>(`/kpis?${query}`, { pollMs: 3000 });
  const analytics = useApi<Analytics>(`/analytics?${query}`, { pollMs: 3000 });
  const agents = useApi<AgentList>('/agents');

  const k = kpis.data;
  const a = analytics.data;
  const days = useMemo(() => dayLabels(from), [from]);
  const byDay = new Map((a?.by_day ?? []).map((d) => [d.day, d]));
  const statuses = Object.entries(a?.by_status ?? {}).sort((x, y) => y[1] - x[1]);

  return (
    <Page
      title="Overview"
      intro="How your calls are doing. The figures refresh by themselves."
      actions={(
        <div class="filters">
          <label>Period
            <select value={rangeId} onChange={(e) => setRangeId((e.target as HTMLSelectElement).value)}>
              {RANGES.map((r) => <option key={r.id} value={r.id}>{r.label}</option>)}
            </select>
          </label>
          <label>Agent
            <select value={agentId} onChange={(e) => setAgentId((e.target as HTMLSelectElement).value)}>
              <option value="">All agents</option>
              {agents.data?.data.map((ag) => <option key={ag.id} value={ag.id}>{ag.name}</option>)}
            </select>
          </label>
        </div>
      )}
    >
      <ErrorNote error={kpis.error ?? analytics.error} />
      {!k || !a ? <Loading what="figures" /> : (
        <>
          <ul class="kpis" aria-label="Key figures">
            <Kpi id="attempted" label="Attempted" value={k.attempted} note="calls dialed" />
            <Kpi id="connected" label="Connected" value={k.connected} note={`${percent(k.connected, k.attempted)} of attempted`} />
            <Kpi id="qualified" label="Qualified" value={k.qualified} note={`${percent(k.qualified, k.connected)} of connected`} />
            <Kpi id="booked" label="Booked" value={k.booked} note={`${percent(k.booked, k.connected)} of connected`} />
          </ul>
          <dl class="facts stats">
            <div><dt>Escalated to a person</dt><dd>{rate(a.escalation_rate)} of connected</dd></div>
            <div><dt>Interruptions</dt><dd>{rate(a.interruption_rate)} of turns</dd></div>
            <div><dt>Average call length</dt><dd>{seconds(a.avg_duration_seconds)}</dd></div>
            <div><dt>Reply latency p50 / p99</dt><dd>{ms(a.latency_p50_ms)} / {ms(a.latency_p99_ms)}</dd></div>
          </dl>
          <p class="hint" aria-live="polite">Updated {time(kpis.updatedAt?.toISOString())}.</p>
          <div class="charts">
            <BarChart
              title="Calls per day" category="Day"
              labels={days.map((d) => d.slice(5))}
              series={[
                { label: 'Calls', data: days.map((d) => byDay.get(d)?.calls ?? 0) },
                { label: 'Connected', data: days.map((d) => byDay.get(d)?.connected ?? 0) },
              ]}
              summary={`${a.calls} calls, ${a.connected} connected, over ${range.label.toLowerCase()}`}
            />
            <BarChart
              title="Calls by outcome" category="Status" horizontal
              labels={statuses.map(([s]) => words(s))}
              series={[{ label: 'Calls', data: statuses.map(([, n]) => n) }]}
              summary={statuses.map(([s, n]) => `${words(s)} ${n}`).join(', ') || 'no calls'}
            />
            <BarChart
              title="Reply latency per agent" category="Agent" unit=" ms"
              labels={a.per_agent.map((p) => p.agent_id)}
              series={[
                { label: 'p50', data: a.per_agent.map((p) => round(p.latency_p50_ms)) },
                { label: 'p99', data: a.per_agent.map((p) => round(p.latency_p99_ms)) },
              ]}
              summary={a.per_agent.map((p) => `${p.agent_id} p50 ${ms(p.latency_p50_ms)}, p99 ${ms(p.latency_p99_ms)}`).join('; ') || 'no answered calls'}
            />
          </div>
          <p class="hint">Definitions: attempted = dialed; connected = answered; qualified = connected with a
            qualification score of at least the threshold; booked = a calendar booking succeeded. Latency runs from the
            end of the caller's speech to the agent's first audio.</p>
        </>
      )}
    </Page>
  );
}

function Kpi({ id, label, value, note }: { id: string; label: string; value: number; note: string }) {
  return (
    <li class="kpi">
      <span class="kpi-label">{label}</span>
      <span class="kpi-value" data-kpi={id}>{value}</span>
      <span class="kpi-note">{note}</span>
    </li>
  );
}

/** Every UTC day from the start of the period to today (the analytics list only days that had calls). */
function dayLabels(from: Date): string[] {
  const out: string[] = [];
  const today = new Date().toISOString().slice(0, 10);
  for (let t = from.getTime(); ; t += 86_400_000) {
    const d = new Date(t).toISOString().slice(0, 10);
    if (d > today) break;
    out.push(d);
  }
  if (out.at(-1) !== today) out.push(today);
  return out;
}

const round = (v: number | null) => (v === null ? 0 : Math.round(v));
