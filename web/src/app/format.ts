/** Display helpers: times, durations, statuses in words. */
export const time = (iso?: string | null) => (iso ? new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }) : '–');
export const dateTime = (iso?: string | null) => (iso ? new Date(iso).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' }) : '–');
export const ms = (v?: number | null) => (v === null || v === undefined ? '–' : `${Math.round(v)} ms`);
export const seconds = (v?: number | null) => (v === null || v === undefined ? '–' : v < 60 ? `${Math.round(v)} s` : `${Math.floor(v / 60)} min ${Math.round(v % 60)} s`);
export const percent = (num: number, den: number) => (den > 0 ? `${Math.round((100 * num) / den)}%` : '–');
export const rate = (v?: number | null) => (v === null || v === undefined ? '–' : `${Math.round(v * 100)}%`);
export const words = (s?: string | null) => (s ? s.replace(/_/g, ' ') : '–');

export function ago(iso: string): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** How long since `iso`, as a running duration ("1 min 5 s"): a waiting handoff's time in the queue. */
export const since = (iso?: string | null, now = Date.now()) => (iso ? seconds(Math.max(0, (now - Date.parse(iso)) / 1000)) : '–');

export const ACTIVE_STATUSES = new Set(['queued', 'dialing', 'ringing', 'in_progress']);

/** Why a call or conversation went to a person, in an operator's words. */
export function reasonText(reason?: string | null): string {
  if (!reason) return 'Handed to a person';
  if (reason === 'caller_requested_human') return 'Asked for a person';
  if (reason.startsWith('cannot_proceed:')) return `No answer about ${words(reason.slice('cannot_proceed:'.length))}`;
  if (reason.startsWith('adapter_failure')) return 'Technical problem on the call';
  if (reason.startsWith('transfer')) return 'Transferred by an operator';
  return words(reason);
}
