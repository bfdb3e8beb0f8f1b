/**
 * The demo conversation routes (public, no login): create, text turn, audio turn. Each turn asks for the
 * agent's reply audio (`reply_audio`); a service that does not offer it yet refuses the unknown field with a
 * 400 naming it, and the page then retries without and stops asking.
 */
import { publicRequest, VoiceApiError } from '../shared/http';

export interface Conversation { id: string; expires_at: string | null; state: string; handoff_state?: string | null }
export interface ConversationView extends Conversation { messages: Array<{ id: number; role: string; text: string; at: string }> }

export interface TurnReply {
  conversation_id: string;
  agent: { text: string; entities: Record<string, string | number>; escalation: string | null; ended: string | null };
  caller: { text: string; transcript_source: string; note?: string };
  state: string;
  handoff?: { handoff_state: string };
  /** 'operator' while a person has the conversation: the turn went to them and agent.text is empty */
  delivered_to?: 'agent' | 'operator';
  segments?: Array<{ startMs: number; endMs: number }>;
  audio?: { sampleRateHz: number; channels: number; durationMs: number };
  processingMs: number;
  reply_audio?: { content_type: string; base64: string };
}

let replyAudioRefused = false;

const refusesReplyAudio = (err: unknown) =>
  err instanceof VoiceApiError && err.status === 400 && JSON.stringify(err.body ?? err.message).includes('reply_audio');

async function withReplyAudio<T>(send: (ask: boolean) => Promise<T>): Promise<T> {
  if (replyAudioRefused) return send(false);
  try {
    return await send(true);
  } catch (err) {
    if (!refusesReplyAudio(err)) throw err;
    replyAudioRefused = true;
    return send(false);
  }
}

export const createConversation = (base: string) =>
  publicRequest<Conversation>(`${base}/conversations`, { json: {} });

/** The conversation as stored: the page reads the operator's replies and the handoff state from it. */
export const readConversation = (base: string, id: string) =>
  publicRequest<ConversationView>(`${base}/conversations/${id}`);

export const textTurn = (base: string, id: string, text: string) =>
  withReplyAudio((ask) => publicRequest<TurnReply>(`${base}/conversations/${id}/turns`, { json: ask ? { text, reply_audio: true } : { text } }));

export const audioTurn = (base: string, id: string, wav: Blob) =>
  withReplyAudio((ask) => {
    const form = new FormData();
    if (ask) form.append('reply_audio', 'true');
    form.append('audio', wav, 'turn.wav');
    return publicRequest<TurnReply>(`${base}/conversations/${id}/audio`, { form });
  });

/** The reply audio as a playable object URL (revoke it when replaced). */
export function replyAudioUrl(r: TurnReply): string | undefined {
  if (!r.reply_audio?.base64) return undefined;
  const bytes = Uint8Array.from(atob(r.reply_audio.base64), (c) => c.charCodeAt(0));
  return URL.createObjectURL(new Blob([bytes], { type: r.reply_audio.content_type || 'audio/wav' }));
}
