/** A call, handoff or campaign state as a coloured label that also reads well without colour. */
const TONE: Record<string, string> = {
  completed: 'ok', delivered: 'ok', resolved: 'ok', done: 'ok', running: 'live', live: 'live',
  in_progress: 'live', dialing: 'live', ringing: 'live', queued: 'live', with_operator: 'live',
  waiting: 'warn', scheduled: 'warn', pending: 'warn', paused: 'warn', draft: 'warn', simulated: 'warn',
  failed: 'bad', busy: 'bad', no_answer: 'bad', blocked: 'bad', canceled: 'bad',
};

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge ${TONE[status] ?? ''}`}>{status.replace(/_/g, ' ')}</span>;
}
