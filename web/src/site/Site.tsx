/**
 * The public site: talk to the agent by text or microphone, see what it heard, how long the work took and what
 * it extracted. The AI disclosure is shown before anything is sent. When the visitor asks for a person, the
 * conversation is handed to the team's operators: the visitor's messages go to them, and the page reads their
 * replies and the handoff state from the conversation every HANDOFF_REFRESH_MS until the operator resolves it
 * (the agent takes over again, or the conversation closes).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { encodeSimVoice } from '../../../src/simvoice/encoder';
import { describeError } from '../shared/http';
import { resolveBase, type RuntimeSettings } from '../shared/settings';
import { audioTurn, createConversation, readConversation, replyAudioUrl, textTurn, type Conversation, type TurnReply } from './demo';
import { MicRecording, pcmToWav, SAMPLE_RATE_HZ } from './mic';
import { BrowserCall, type CallItem } from './call';
import { TurnDetails } from './TurnDetails';

interface Message { id: number; role: 'agent' | 'caller' | 'operator'; text: string; via?: 'text' | 'microphone' | 'simulated speech' | 'call' }

/** A browser call's state: asking for the microphone and connecting, live, or over (with why). */
type CallState = { phase: 'connecting' } | { phase: 'live'; call: BrowserCall; since: number } | { phase: 'ended'; why: string };

/** Longest recording the page sends: the service's limit, capped at half a minute (a demo turn is a sentence). */
const MAX_RECORDING_SECONDS = 30;
/** How often a handed-off conversation is read for the operator's replies: the operator app's own refresh period. */
const HANDOFF_REFRESH_MS = 2000;
const WHO: Record<Message['role'], string> = { agent: 'Agent (AI)', caller: 'You', operator: 'Person from the team' };

export function Site({ settings }: { settings: RuntimeSettings }) {
  const base = resolveBase(settings.public_voice_api_endpoint);
  const [conversation, setConversation] = useState<Conversation>();
  const [messages, setMessages] = useState<Message[]>([]);
  const [entities, setEntities] = useState<Record<string, string | number>>({});
  const [last, setLast] = useState<TurnReply>();
  const [audioUrl, setAudioUrl] = useState<string>();
  const [text, setText] = useState('');
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();
  const [recording, setRecording] = useState<MicRecording>();
  const [callState, setCallState] = useState<CallState>();
  const callRef = useRef<BrowserCall | undefined>(undefined);
  const [, tick] = useState(0);
  const player = useRef<HTMLAudioElement>(null);
  const nextId = useRef(1);
  /** the last operator message shown (server message id) */
  const seenOperator = useRef(0);
  const maxSeconds = Math.min(MAX_RECORDING_SECONDS, settings.audio_max_seconds);

  // Re-render while recording (timer and level meter); stop at the length limit.
  useEffect(() => {
    if (!recording) return;
    const timer = setInterval(() => {
      if (recording.seconds >= maxSeconds) void stopAndSend();
      tick((n) => n + 1);
    }, 100);
    return () => clearInterval(timer);
  }, [recording]);

  // Re-render while a call is live (its timer, audio counters and microphone meter).
  useEffect(() => {
    if (callState?.phase !== 'live') return;
    const timer = setInterval(() => tick((n) => n + 1), 250);
    return () => clearInterval(timer);
  }, [callState?.phase]);

  // Leaving the page hangs up.
  useEffect(() => () => callRef.current?.hangUp(), []);

  useEffect(() => {
    if (audioUrl) void player.current?.play().catch(() => { /* autoplay refused: the controls are there */ });
    return () => { if (audioUrl) URL.revokeObjectURL(audioUrl); };
  }, [audioUrl]);

  const push = (m: Omit<Message, 'id'>) => setMessages((all) => [...all, { ...m, id: nextId.current++ }]);

  // While a person has the conversation: their replies and the handoff state, read from the conversation.
  const inHandoff = conversation?.state === 'handoff';
  useEffect(() => {
    if (!inHandoff || !conversation) return;
    const id = conversation.id;
    let stopped = false;
    const refresh = async () => {
      try {
        const v = await readConversation(base, id);
        if (stopped) return;
        for (const m of v.messages) {
          if (m.role !== 'operator' || m.id <= seenOperator.current) continue;
          seenOperator.current = m.id;
          push({ role: 'operator', text: m.text });
        }
        setConversation((c) => (c && c.id === id ? { ...c, state: v.state, handoff_state: v.handoff_state } : c));
      } catch { /* retried at the next refresh */ }
    };
    void refresh();
    const timer = setInterval(() => void refresh(), HANDOFF_REFRESH_MS);
    return () => { stopped = true; clearInterval(timer); };
  }, [inHandoff, conversation?.id]);

  async function ensureConversation(): Promise<Conversation> {
    if (conversation && conversation.state !== 'closed') return conversation;
    const c = await createConversation(base);
    setConversation(c);
    return c;
  }

  async function run(label: string, turn: (c: Conversation) => Promise<TurnReply>, shown?: Omit<Message, 'id'>) {
    setBusy(label);
    setError(undefined);
    try {
      const c = await ensureConversation();
      if (shown) push(shown);
      const r = await turn(c);
      if (!shown) push({ role: 'caller', text: r.caller.text || '(nothing recognised)', via: 'microphone' });
      if (r.delivered_to !== 'operator') {
        push({ role: 'agent', text: r.agent.text });
        setEntities((e) => ({ ...e, ...r.agent.entities }));
        setAudioUrl(replyAudioUrl(r));
      }
      setLast(r);
      setConversation((cur) => ({ ...(cur ?? c), state: r.state, handoff_state: r.handoff?.handoff_state ?? (cur ?? c).handoff_state }));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(undefined);
    }
  }

  function sendText(ev: Event) {
    ev.preventDefault();
    const t = text.trim();
    if (!t || busy) return;
    setText('');
    void run('Sending…', (c) => textTurn(base, c.id, t), { role: 'caller', text: t, via: 'text' });
  }

  function sendSimulatedSpeech() {
    const t = text.trim();
    if (!t || busy) return;
    setText('');
    const wav = pcmToWav(encodeSimVoice(t, { sampleRateHz: SAMPLE_RATE_HZ }), SAMPLE_RATE_HZ);
    void run('Sending audio…', (c) => audioTurn(base, c.id, wav), { role: 'caller', text: t, via: 'simulated speech' });
  }

  async function startRecording() {
    setError(undefined);
    try {
      setRecording(await MicRecording.start());
    } catch (err) {
      const name = (err as { name?: string }).name;
      setError(name === 'NotAllowedError'
        ? 'Microphone access was blocked. Allow it from the address bar, or type your message instead.'
        : name === 'NotFoundError' ? 'No microphone was found. You can type your message instead.' : describeError(err));
    }
  }

  async function stopAndSend() {
    const rec = recording;
    if (!rec) return;
    setRecording(undefined);
    const wav = await rec.stop();
    void run('Sending audio…', (c) => audioTurn(base, c.id, wav));
  }

  async function callAgent() {
    setError(undefined);
    setCallState({ phase: 'connecting' });
    const onItem = (item: CallItem) => {
      if (item.type === 'transcript' && !item.partial && item.text && (item.speaker === 'agent' || item.speaker === 'caller')) {
        push({ role: item.speaker, text: item.text, via: 'call' });
      } else if (item.type === 'entity' && item.key) setEntities((e) => ({ ...e, [item.key!]: item.value ?? '' }));
    };
    try {
      callRef.current = await BrowserCall.start(base, {
        started: (call) => setCallState({ phase: 'live', call, since: Date.now() }),
        item: onItem,
        ended: (code, reason) => {
          callRef.current = undefined;
          setCallState({ phase: 'ended', why: code === 1000 || code === 1005 ? 'The call has ended.' : `The call was cut off (${reason || code}).` });
        },
      });
    } catch (err) {
      const name = (err as { name?: string }).name;
      setCallState(undefined);
      setError(name === 'NotAllowedError'
        ? 'Microphone access was blocked. Allow it from the address bar to call the agent, or type your message instead.'
        : name === 'NotFoundError' ? 'No microphone was found. You can type your message instead.' : describeError(err));
    }
  }

  function hangUp() {
    callRef.current?.hangUp();
  }

  function startOver() {
    callRef.current?.hangUp();
    setCallState(undefined);
    void recording?.cancel();
    setRecording(undefined);
    setConversation(undefined);
    setMessages([]);
    seenOperator.current = 0;
    setEntities({});
    setLast(undefined);
    setAudioUrl(undefined);
    setError(undefined);
  }

  const closed = conversation?.state === 'closed';
  const inCall = callState?.phase === 'connecting' || callState?.phase === 'live';
  const live = callState?.phase === 'live' ? callState : undefined;
  return (
    <>
      <header class="site-header">
        <div class="container bar">
          <a class="brand" href="/"><img src="/favicon.svg" alt="" width="28" height="28" /> voicecall</a>
          <a href="/app">Operator sign-in</a>
        </div>
      </header>
      <main class="container" id="main">
        <section class="hero">
          <h1>Talk to an AI calling agent</h1>
          <p>This is the agent our customers put on the phone to qualify leads. Type or speak to it as if it had
            just called you: it asks a few questions, and the panel shows what it understood.</p>
          <aside class="disclosure" role="note" aria-label="AI disclosure">
            <strong>You are talking to an AI, not a person.</strong> What you type or say is sent to this service to
            produce the replies and is kept with the conversation
            {conversation?.expires_at ? <> until {new Date(conversation.expires_at).toLocaleTimeString()}</> : ' for an hour'}, then deleted.
            Please don't share anything sensitive.
          </aside>
        </section>

        <div class="demo-grid">
          <section class="chat" aria-labelledby="chat-title">
            <h2 id="chat-title">Conversation</h2>
            <div class="messages-box" role="log" aria-live="polite" aria-label="Conversation messages" tabIndex={0}>
            <ol class="messages">
              {messages.length === 0 && <li class="empty">Say hello to start. The agent introduces itself first.</li>}
              {messages.map((m) => (
                <li key={m.id} class={`msg ${m.role}`}>
                  <span class="who">{WHO[m.role]}{m.via && m.via !== 'text' ? ` · ${m.via}` : ''}</span>
                  <span class="text">{m.text}</span>
                </li>
              ))}
            </ol>
            </div>
            {busy && <p class="status" role="status" aria-busy="true">{busy}</p>}
            {error && <p class="error" role="alert">{error}</p>}
            <HandoffNotice conversation={conversation} />

            <div class="call-bar" role="group" aria-labelledby="call-title">
              <span id="call-title" class="visually-hidden">Call the agent</span>
              {inCall ? (
                <button type="button" class="hang-up" onClick={hangUp} disabled={!live}>Hang up</button>
              ) : (
                <button type="button" onClick={() => void callAgent()} disabled={!!busy || !!recording}>Call the agent</button>
              )}
              {callState?.phase === 'connecting' && <span role="status">Connecting…</span>}
              {live && <span role="status">On a call · {clock(Date.now() - live.since)}</span>}
              {live && <meter aria-label="Your microphone level" min={0} max={1} value={Math.min(1, live.call.level * 4)} />}
              {live && (
                <small class="call-audio">Agent audio: <output data-testid="call-frames">{live.call.framesReceived}</output> frames
                  received, <output data-testid="call-played-ms">{Math.round(live.call.playedMs)}</output> ms played</small>
              )}
              {callState?.phase === 'ended' && <span role="status">{callState.why}</span>}
            </div>
            {!inCall && !callState && (
              <p class="hint">“Call the agent” is a call like a phone call, from this page: speak when you like, interrupt it
                if you want, and hang up when you are done. Or type, or send one recorded message at a time.</p>
            )}

            <form class="composer" onSubmit={sendText}>
              <label for="message">Your message</label>
              <div class="composer-row">
                <input id="message" name="message" autocomplete="off" maxLength={2000} placeholder="e.g. Hi, I'm Priya and I'm looking for a flat"
                  value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} disabled={!!recording || closed || inCall} />
                <button type="submit" disabled={!text.trim() || !!busy || !!recording || closed || inCall}>Send</button>
              </div>
              <div class="composer-row secondary">
                {recording ? (
                  <button type="button" class="recording" onClick={() => void stopAndSend()}>
                    Stop and send ({recording.seconds.toFixed(1)} s)
                  </button>
                ) : (
                  <button type="button" class="secondary" onClick={() => void startRecording()} disabled={!!busy || closed || inCall}>
                    Speak with the microphone
                  </button>
                )}
                {recording && (
                  <meter aria-label="Microphone level" min={0} max={1} value={Math.min(1, recording.level * 4)} />
                )}
                {settings.service_mode === 'simulator' && !recording && (
                  <button type="button" class="outline" onClick={sendSimulatedSpeech} disabled={!text.trim() || !!busy || closed}
                    title="Encodes your message as the simulator's tone speech and sends it as audio">
                    Send as simulated speech
                  </button>
                )}
                <button type="button" class="outline secondary" onClick={startOver} disabled={!!busy}>Start over</button>
              </div>
              {recording && <p class="hint" role="status">Recording… up to {maxSeconds} s. Press “Stop and send” when you are done.</p>}
              {settings.service_mode === 'simulator' && (
                <p class="hint">This service runs its simulator: its speech-to-text understands only the simulator's own
                  tone code, so a real voice is measured (speech segments, timing) but not transcribed.
                  “Send as simulated speech” turns your typed message into that code to show the whole audio path.</p>
              )}
            </form>
          </section>

          <aside class="insight" aria-labelledby="insight-title">
            <h2 id="insight-title">What the agent understood</h2>
            {Object.keys(entities).length === 0
              ? <p class="muted">Nothing yet. Try telling it your name, what you are looking for and your budget.</p>
              : (
                <dl class="entities">
                  {Object.entries(entities).map(([k, v]) => (
                    <div key={k}><dt>{label(k)}</dt><dd>{String(v)}</dd></div>
                  ))}
                </dl>
              )}
            {last && <TurnDetails reply={last} />}
            {audioUrl && (
              <figure class="reply-audio">
                <figcaption>The agent's reply, spoken</figcaption>
                <audio ref={player} controls src={audioUrl} />
              </figure>
            )}
          </aside>
        </div>
      </main>
      <footer class="container site-footer">
        <small>API: <code>{base}</code> · <a href={`${base}/openapi.json`}>OpenAPI</a></small>
      </footer>
    </>
  );
}

/** m:ss */
const clock = (ms: number) => `${Math.floor(ms / 60_000)}:${String(Math.floor(ms / 1000) % 60).padStart(2, '0')}`;

/** Where a handed-off conversation stands, in the visitor's words. */
function HandoffNotice({ conversation: c }: { conversation?: Conversation }) {
  if (!c?.handoff_state && c?.state !== 'closed') return null;
  const text = c.state === 'closed'
    ? 'This conversation is closed. Start over to talk to the agent again.'
    : c.handoff_state === 'waiting' ? 'You asked for a person. Someone from the team will join here; what you write now goes to them.'
      : c.handoff_state === 'with_operator' ? 'A person from the team has joined: you are chatting with them now, not with the AI.'
        : c.handoff_state === 'resolved' ? 'The person from the team has handed you back to the AI agent.' : '';
  return text ? <p class="notice" role="status" data-testid="handoff-notice" data-state={c.state === 'closed' ? 'closed' : c.handoff_state}>{text}</p> : null;
}

const LABELS: Record<string, string> = {
  customer_name: 'Name', intent: 'Looking for', budget: 'Budget', scheduled_slot: 'Preferred slot', qualification_score: 'Qualification score',
};
export const label = (key: string) => LABELS[key] ?? key.replace(/_/g, ' ');
