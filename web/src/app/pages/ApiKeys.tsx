/** Service API keys for servers (dispatch, leads, reading calls): create one (shown once), see them, revoke. */
import { useState } from 'preact/hooks';
import { ErrorNote, Loading, Page } from '../components/Page';
import { RoleSelect } from '../components/RoleSelect';
import { StatusBadge } from '../components/StatusBadge';
import { dateTime } from '../format';
import { useAction, useApi } from '../hooks';
import { useApp } from '../session';

interface ApiKey { id: string; name: string; prefix: string; role: string; created_at: string; revoked_at: string | null }

export function ApiKeys() {
  const { api } = useApp();
  const keys = useApi<{ data: ApiKey[] }>('/api-keys');
  const [name, setName] = useState('');
  const [role, setRole] = useState('operator');
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const { pending, error, run } = useAction();

  async function create(ev: Event) {
    ev.preventDefault();
    const r = await run(() => api.post<{ key: string; name: string }>('/api-keys', { name: name.trim(), role }));
    if (r) { setCreated({ name: r.name ?? name, key: r.key }); setName(''); void keys.reload(); }
  }
  async function revoke(k: ApiKey) {
    if (!confirm(`Revoke the key “${k.name}”? Servers using it stop working.`)) return;
    if (await run(() => api.del(`/api-keys/${k.id}`).then(() => true))) void keys.reload();
  }

  return (
    <Page title="API keys" intro="Keys let your servers dispatch calls, send leads and read calls without a user. Treat them like passwords.">
      <form class="card" onSubmit={create} aria-labelledby="new-key-title">
        <h2 id="new-key-title">Create a key</h2>
        <div class="grid-form">
          <label>Name (what uses it)<input required maxLength={100} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} /></label>
          <RoleSelect value={role} onChange={setRole} />
        </div>
        <button type="submit" aria-busy={pending} disabled={pending}>Create key</button>
      </form>
      {created && (
        <div class="notice" role="status">
          <p><strong>Copy the key “{created.name}” now:</strong> it is not shown again.</p>
          <p><code class="secret" data-testid="new-key">{created.key}</code>
            {' '}<button type="button" class="outline small" onClick={() => void navigator.clipboard?.writeText(created.key)}>Copy</button>
            {' '}<button type="button" class="outline secondary small" onClick={() => setCreated(undefined)}>Done</button></p>
        </div>
      )}
      <ErrorNote error={error ?? keys.error} />
      {!keys.data ? <Loading what="keys" /> : keys.data.data.length === 0 ? <p class="muted">No keys yet.</p> : (
        <div class="table-wrap">
          <table class="striped">
            <thead><tr><th scope="col">Name</th><th scope="col">Starts with</th><th scope="col">Role</th><th scope="col">Created</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {keys.data.data.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td><td><code>vk_{k.prefix}_…</code></td><td>{k.role}</td><td>{dateTime(k.created_at)}</td>
                  <td><StatusBadge status={k.revoked_at ? 'revoked' : 'active'} /></td>
                  <td>{!k.revoked_at && <button type="button" class="outline secondary small" onClick={() => void revoke(k)}>Revoke</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}
