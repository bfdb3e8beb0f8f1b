/**
 * Agents: what each says first (the AI disclosure), the questions it asks, what it knows to answer callers'
 * questions with (its knowledge base), and its voice and turn-taking.
 * Admins edit and create them; operators read them.
 */
import { useEffect, useState } from 'preact/hooks';
import { ErrorNote, Loading, Page } from '../components/Page';
import { useAction, useApi } from '../hooks';
import { useApp } from '../session';
import type { Agent, AgentList } from '../types';

const BLANK: Agent = {
  id: '', name: '', role: 'sales qualifier', voice: 'alloy', language: 'en-US', interruption_sensitivity: 0.5, turn_detection_timeout_ms: 800,
  disclosure_script: 'Hello, this is an automated assistant for our team. You are talking with an AI, and this conversation may be recorded.',
  qualify_script: [{ field: 'customer_name', question: 'May I have your name, please?' }],
  knowledge: [],
};

export function Agents() {
  const { isAdmin } = useApp();
  const agents = useApi<AgentList>('/agents');
  const [selected, setSelected] = useState<string>();
  const list = agents.data?.data ?? [];
  const current = selected === '' ? BLANK : list.find((a) => a.id === selected) ?? list[0];

  return (
    <Page title="Agents" intro={isAdmin ? 'What your agents say and how they listen.' : 'What your agents say and how they listen. Only admins can change them.'}
      actions={isAdmin && <button type="button" onClick={() => setSelected('')}>New agent</button>}>
      <ErrorNote error={agents.error} />
      {!agents.data ? <Loading what="agents" /> : (
        <div class="live-grid">
          <section class="card picker" aria-labelledby="agents-title">
            <h2 id="agents-title">Agents</h2>
            <ul>
              {list.map((a) => (
                <li key={a.id}>
                  <button type="button" class={`pick ${a.id === current?.id ? 'selected' : ''}`} aria-pressed={a.id === current?.id} onClick={() => setSelected(a.id)}>
                    <span class="pick-to">{a.name}</span><span class="pick-meta">{a.id} · {a.language} · voice {a.voice}</span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
          <div class="live-main">
            {current && <AgentForm key={current.id || 'new'} agent={current} isNew={selected === ''} readOnly={!isAdmin}
              onSaved={(id) => { void agents.reload(); setSelected(id); }} />}
          </div>
        </div>
      )}
    </Page>
  );
}

function AgentForm({ agent, isNew, readOnly, onSaved }: { agent: Agent; isNew: boolean; readOnly: boolean; onSaved: (id: string) => void }) {
  const { api } = useApp();
  const [a, setA] = useState<Agent>(agent);
  const [saved, setSaved] = useState(false);
  const { pending, error, run } = useAction();
  useEffect(() => setSaved(false), [a]);
  const set = <K extends keyof Agent>(k: K, v: Agent[K]) => setA((x) => ({ ...x, [k]: v }));
  const setStep = (i: number, k: 'field' | 'question', v: string) =>
    set('qualify_script', a.qualify_script.map((s, j) => (j === i ? { ...s, [k]: v } : s)));
  const knowledge = a.knowledge ?? [];
  const setFact = (i: number, k: 'question' | 'answer', v: string) => set('knowledge', knowledge.map((f, j) => (j === i ? { ...f, [k]: v } : f)));

  async function save(ev: Event) {
    ev.preventDefault();
    const { id, name, disclosure_script, qualify_script, role, voice, language, interruption_sensitivity, turn_detection_timeout_ms } = a;
    // a question left empty makes the entry a plain fact
    const facts = knowledge.map((f) => (f.question?.trim() ? { question: f.question.trim(), answer: f.answer } : { answer: f.answer }));
    const ok = await run(() => api.put(`/agents/${encodeURIComponent(id)}`, {
      name, disclosure_script, qualify_script, role, voice, language, interruption_sensitivity, turn_detection_timeout_ms, knowledge: facts,
    }));
    if (ok !== undefined) { setSaved(true); onSaved(id); }
  }

  const input = (e: Event) => (e.target as HTMLInputElement).value;
  return (
    <form class="card" onSubmit={save} aria-labelledby="agent-form-title">
      <h2 id="agent-form-title">{isNew ? 'New agent' : a.name}</h2>
      <fieldset disabled={readOnly}>
        <div class="grid-form">
          {isNew && <label>Id (lowercase, used in API calls)<input required pattern="[a-z0-9][a-z0-9_\-]{0,63}" value={a.id} onInput={(e) => set('id', input(e))} /></label>}
          <label>Name<input required maxLength={200} value={a.name} onInput={(e) => set('name', input(e))} /></label>
          <label>Role<input required maxLength={200} value={a.role} onInput={(e) => set('role', input(e))} /></label>
          <label>Voice<input required maxLength={100} value={a.voice} onInput={(e) => set('voice', input(e))} /></label>
          <label>Language<input required pattern="[a-z]{2,3}(-[A-Za-z0-9]{2,8})*" value={a.language} onInput={(e) => set('language', input(e))} /></label>
          <label>Interruption sensitivity: {a.interruption_sensitivity.toFixed(2)}
            <input type="range" min={0} max={1} step={0.05} value={a.interruption_sensitivity}
              aria-describedby="sens-help" onInput={(e) => set('interruption_sensitivity', Number(input(e)))} />
            <small id="sens-help">Higher: the agent stops sooner when the caller talks over it.</small>
          </label>
          <label>End of turn after silence (ms)
            <input type="number" min={200} max={5000} step={50} required value={a.turn_detection_timeout_ms}
              onInput={(e) => set('turn_detection_timeout_ms', Number(input(e)))} />
          </label>
        </div>
        <label>AI disclosure (said first on every call)
          <textarea required maxLength={2000} rows={3} value={a.disclosure_script} onInput={(e) => set('disclosure_script', input(e))} />
        </label>
        <fieldset class="steps">
          <legend>Questions, in order</legend>
          {a.qualify_script.map((s, i) => (
            <div class="step" key={i}>
              <label>Field {i + 1}<input required pattern="[a-z][a-z0-9_]{0,63}" value={s.field} onInput={(e) => setStep(i, 'field', input(e))} /></label>
              <label class="grow">Question {i + 1}<input required maxLength={500} value={s.question} onInput={(e) => setStep(i, 'question', input(e))} /></label>
              {!readOnly && <button type="button" class="outline secondary small" aria-label={`Remove question ${i + 1}`}
                onClick={() => set('qualify_script', a.qualify_script.filter((_, j) => j !== i))}>Remove</button>}
            </div>
          ))}
          {!readOnly && <button type="button" class="outline small" onClick={() => set('qualify_script', [...a.qualify_script, { field: '', question: '' }])}>Add a question</button>}
        </fieldset>
        <fieldset class="steps" aria-describedby="knowledge-help">
          <legend>What the agent knows</legend>
          <small id="knowledge-help">Answers to questions callers ask (at most 50). The agent answers only from these; anything else is noted for your team.</small>
          {knowledge.map((f, i) => (
            <div class="step" key={i}>
              <label>Question {i + 1} (optional)<input maxLength={300} value={f.question ?? ''} onInput={(e) => setFact(i, 'question', input(e))} /></label>
              <label class="grow">Answer {i + 1}<textarea required maxLength={1000} rows={2} value={f.answer} onInput={(e) => setFact(i, 'answer', input(e))} /></label>
              {!readOnly && <button type="button" class="outline secondary small" aria-label={`Remove answer ${i + 1}`}
                onClick={() => set('knowledge', knowledge.filter((_, j) => j !== i))}>Remove</button>}
            </div>
          ))}
          {!readOnly && knowledge.length < 50 && <button type="button" class="outline small" onClick={() => set('knowledge', [...knowledge, { question: '', answer: '' }])}>Add an answer</button>}
        </fieldset>
      </fieldset>
      {error && <p class="error" role="alert">{error}</p>}
      {saved && <p class="notice" role="status">Saved.</p>}
      {!readOnly && <button type="submit" aria-busy={pending} disabled={pending}>{isNew ? 'Create agent' : 'Save changes'}</button>}
    </form>
  );
}
