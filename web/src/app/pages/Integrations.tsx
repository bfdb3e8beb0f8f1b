/** Which provider each slot uses, live or simulated, from which keys the service found (never their values). */
import { ErrorNote, Loading, Page } from '../components/Page';
import { StatusBadge } from '../components/StatusBadge';
import { words } from '../format';
import { useApi } from '../hooks';

interface Slot { slot: string; provider: string; mode: string; keys: Array<{ name: string; present: boolean }> }

export function Integrations() {
  const r = useApi<{ service_mode: string; data: Slot[] }>('/integrations');
  return (
    <Page title="Integrations" intro="A slot goes live when all its keys are set in the service's environment. Check this before switching SERVICE_MODE to live.">
      <ErrorNote error={r.error} />
      {!r.data ? <Loading what="integrations" /> : (
        <>
          <p>Service mode: <StatusBadge status={r.data.service_mode} /></p>
          <div class="table-wrap">
            <table class="striped">
              <thead><tr><th scope="col">Slot</th><th scope="col">Provider</th><th scope="col">Mode</th><th scope="col">Keys</th></tr></thead>
              <tbody>
                {r.data.data.map((s) => (
                  <tr key={s.slot}>
                    <td>{words(s.slot)}</td><td>{s.provider}</td><td><StatusBadge status={s.mode} /></td>
                    <td>{s.keys.map((k) => <span key={k.name} class="key-state"><code>{k.name}</code> {k.present ? 'set' : 'missing'}</span>)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Page>
  );
}
