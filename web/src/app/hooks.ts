/** Data loading for pages: fetch on mount and when the path changes, optionally poll while the tab is visible. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from '../shared/http';
import { useApp } from './session';

export interface Loaded<T> { data?: T; error?: string; loading: boolean; reload: () => Promise<void>; updatedAt?: Date }

export function useApi<T>(path: string | null, opts: { pollMs?: number } = {}): Loaded<T> {
  const { api } = useApp();
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean; updatedAt?: Date }>({ loading: !!path });
  const current = useRef(path);
  current.current = path;

  const reload = useCallback(async () => {
    if (!path) return;
    try {
      const data = await api.get<T>(path);
      if (current.current === path) setState({ data, loading: false, updatedAt: new Date() });
    } catch (err) {
      if (current.current === path) setState((s) => ({ ...s, error: describeError(err), loading: false }));
    }
  }, [api, path]);

  useEffect(() => {
    setState({ loading: !!path });
    void reload();
    if (!opts.pollMs || !path) return;
    const timer = setInterval(() => { if (!document.hidden) void reload(); }, opts.pollMs);
    return () => clearInterval(timer);
  }, [reload, opts.pollMs]);

  return { ...state, reload };
}

/** Runs an action (a button's POST), keeping its pending state and its error message. */
export function useAction() {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string>();
  const run = useCallback(async <R>(fn: () => Promise<R>): Promise<R | undefined> => {
    setPending(true);
    setError(undefined);
    try { return await fn(); } catch (err) { setError(describeError(err)); return undefined; } finally { setPending(false); }
  }, []);
  return { pending, error, run, setError };
}

/** The destination numbers of some calls, fetched once each (a call's number never changes). */
export function useCallNumbers(ids: string[]): Record<string, string> {
  const { api } = useApp();
  const known = useRef<Record<string, string>>({});
  const [, bump] = useState(0);
  useEffect(() => {
    const missing = ids.filter((id) => !(id in known.current));
    for (const id of missing) {
      known.current[id] = '';
      api.get<{ to: string }>(`/calls/${encodeURIComponent(id)}`)
        .then((c) => { known.current[id] = c.to; bump((n) => n + 1); })
        .catch(() => { /* shown without a number */ });
    }
  }, [ids.join()]);
  return known.current;
}
