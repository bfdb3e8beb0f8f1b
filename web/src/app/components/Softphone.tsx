/**
 * The operator's softphone on a call they took: "Join audio" asks for a ticket (POST /v1/handoffs/{id}/audio), then
 * streams the microphone over the call's operator socket and plays the caller (the site's browser call, joined to
 * a call that already runs). While joined the agent stays quiet; the operator's words reach the caller and the
 * recording. Leaving the audio leaves the call with the operator; handing back or closing ends the leg.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { BrowserCall } from '../../site/call';
import { describeError } from '../../shared/http';
import { useApp } from '../session';

interface Ticket { call_id: string; media_url: string; token: string }

export function Softphone({ handoffId }: { handoffId: string }) {
  const { api } = useApp();
  const [state, setState] = useState<'idle' | 'joining' | 'on'>('idle');
  const [note, setNote] = useState<string>();
  const [level, setLevel] = useState(0);
  const call = useRef<BrowserCall | undefined>(undefined);

  useEffect(() => () => call.current?.hangUp(), []);
  useEffect(() => {
    if (state !== 'on') return;
    const timer = setInterval(() => setLevel(call.current?.level ?? 0), 200);
    return () => clearInterval(timer);
  }, [state]);

  const join = async () => {
    setState('joining');
    setNote(undefined);
    try {
      call.current = await BrowserCall.join(async () => {
        const t = await api.post<Ticket>(`/handoffs/${handoffId}/audio`);
        return { callId: t.call_id, token: t.token, url: t.media_url };
      }, {
        started: () => setState('on'),
        item: () => {},
        ended: (code) => {
          call.current = undefined;
          setState('idle');
          setNote(code === 1000 ? 'The audio ended: the call went back to the agent or ended.' : code === 1005 ? undefined : `The audio ended (${code}).`);
        },
      });
    } catch (err) {
      setState('idle');
      setNote(describeError(err));
    }
  };

  return (
    <div class="softphone" data-testid="softphone">
      {state === 'on' ? (<>
        <span class="badge" data-testid="audio-joined">On the call's audio</span>
        <meter min={0} max={0.3} value={level} aria-label="Your microphone level" />
        <button type="button" class="secondary outline" onClick={() => { call.current?.hangUp(); call.current = undefined; setState('idle'); }}>Leave audio</button>
      </>) : (
        <button type="button" onClick={() => void join()} disabled={state === 'joining'}>{state === 'joining' ? 'Joining…' : 'Join audio'}</button>
      )}
      <p class="hint">{state === 'on'
        ? 'You hear the caller and they hear you; the agent stays quiet. Your words are recorded and transcribed as the operator\'s.'
        : 'Talk with the caller from this browser (microphone and speakers), or type replies that are spoken for you.'}</p>
      {note && <p class="hint" role="status">{note}</p>}
    </div>
  );
}
