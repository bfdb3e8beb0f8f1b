/**
 * "Place a test call": dispatches a call with one of the simulator's numbers (each forces an outcome: no answer,
 * a caller who asks for a person, …) or any number. The list comes from src/adapters/sim_numbers.ts at build
 * time, so it is the one the service uses.
 */
import { useState } from 'preact/hooks';
import { SIM_NUMBERS } from '../../../../src/adapters/sim_numbers';
import { useAction, useApi } from '../hooks';
import { useApp } from '../session';
import type { AgentList, Call } from '../types';

const TOOLS = [
  { id: 'calendar_booking', label: 'Book a calendar slot' },
  { id: 'crm_sync', label: 'Update the CRM' },
  { id: 'messaging_brochure', label: 'Send a brochure' },
];
const COOPERATIVE = '+14155550123';
const OTHER = 'other';

export function TestCallForm({ onPlaced }: { onPlaced: (call: Call) => void }) {
  const { api, settings } = useApp();
  const agents = useApi<AgentList>('/agents');
  const simulator = settings.service_mode === 'simulator';
  const [choice, setChoice] = useState(simulator ? COOPERATIVE : OTHER);
  const [other, setOther] = useState('');
  const [agentId, setAgentId] = useState('default');
  const [name, setName] = useState('');
  const [tools, setTools] = useState<string[]>(['calendar_booking', 'crm_sync']);
  const { pending, error, run } = useAction();

  async function submit(ev: Event) {
    ev.preventDefault();
    const to = choice === OTHER ? other.trim() : choice;
    const call = await run(() => api.post<Call>('/calls/dispatch', {
      to, agent_id: agentId, tools, ...(name.trim() ? { context: { customer_name: name.trim() } } : {}),
    }));
    if (call) onPlaced(call);
  }

  return (
    <form class="card test-call" onSubmit={submit} aria-labelledby="test-call-title">
      <h2 id="test-call-title">Place a test call</h2>
      {!simulator && <p class="notice">This service is in live mode: the number you enter is really dialed.</p>}
      <div class="grid-form">
        <label>Who to call
          <select value={choice} onChange={(e) => setChoice((e.target as HTMLSelectElement).value)} name="to">
            {simulator && <option value={COOPERATIVE}>{COOPERATIVE}: cooperative caller (name, budget, a slot)</option>}
            {simulator && Object.entries(SIM_NUMBERS).map(([n, s]) => <option key={n} value={n}>{n}: {s.description}</option>)}
            <option value={OTHER}>Another number…</option>
          </select>
        </label>
        {choice === OTHER && (
          <label>Number (E.164)
            <input type="tel" required placeholder="+919812345678" pattern="\+[1-9][0-9]{6,14}" value={other}
              onInput={(e) => setOther((e.target as HTMLInputElement).value)} />
          </label>
        )}
        <label>Agent
          <select value={agentId} onChange={(e) => setAgentId((e.target as HTMLSelectElement).value)}>
            {(agents.data?.data ?? [{ id: 'default', name: 'default' }]).map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
          </select>
        </label>
        <label>Caller's name (optional)
          <input value={name} maxLength={100} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
      </div>
      <fieldset class="tools">
        <legend>The agent may</legend>
        {TOOLS.map((t) => (
          <label key={t.id}>
            <input type="checkbox" checked={tools.includes(t.id)}
              onChange={(e) => setTools((cur) => ((e.target as HTMLInputElement).checked ? [...cur, t.id] : cur.filter((x) => x !== t.id)))} />
            {t.label}
          </label>
        ))}
      </fieldset>
      {error && <p class="error" role="alert">{error}</p>}
      <button type="submit" aria-busy={pending} disabled={pending}>Place call</button>
    </form>
  );
}
