/** The team's users: admins manage everything, operators handle calls and handoffs. */
import { useState } from 'preact/hooks';
import { ErrorNote, Loading, Page } from '../components/Page';
import { RoleSelect } from '../components/RoleSelect';
import { useAction, useApi } from '../hooks';
import { useApp } from '../session';

interface User { id: string; email: string; role: string }

export function Users() {
  const { api, session } = useApp();
  const users = useApi<{ data: User[] }>('/users');
  const [f, setF] = useState({ email: '', password: '', role: 'operator' });
  const [note, setNote] = useState<string>();
  const { pending, error, run } = useAction();

  async function create(ev: Event) {
    ev.preventDefault();
    const r = await run(() => api.post<User>('/users', f));
    if (r) { setNote(`${r.email} can now sign in as ${r.role}.`); setF({ email: '', password: '', role: 'operator' }); void users.reload(); }
  }
  async function remove(u: User) {
    if (!confirm(`Delete ${u.email}? They can no longer sign in.`)) return;
    if (await run(() => api.del(`/users/${u.id}`).then(() => true))) { setNote(`${u.email} deleted.`); void users.reload(); }
  }

  return (
    <Page title="Users" intro="Operators watch calls and take over handoffs; admins also change agents, keys and users.">
      <form class="card" onSubmit={create} aria-labelledby="new-user-title">
        <h2 id="new-user-title">Add a user</h2>
        <div class="grid-form">
          <label>Email<input type="email" required autocomplete="off" value={f.email} onInput={(e) => setF({ ...f, email: (e.target as HTMLInputElement).value })} /></label>
          <label>Password (12 characters or more)<input type="password" required minLength={12} autocomplete="new-password" value={f.password} onInput={(e) => setF({ ...f, password: (e.target as HTMLInputElement).value })} /></label>
          <RoleSelect value={f.role} onChange={(role) => setF({ ...f, role })} />
        </div>
        <button type="submit" aria-busy={pending} disabled={pending}>Add user</button>
      </form>
      {note && <p class="notice" role="status">{note}</p>}
      <ErrorNote error={error ?? users.error} />
      {!users.data ? <Loading what="users" /> : (
        <div class="table-wrap">
          <table class="striped">
            <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {users.data.data.map((u) => (
                <tr key={u.id}>
                  <td>{u.email}{u.id === session.userId ? ' (you)' : ''}</td><td>{u.role}</td>
                  <td>{u.id !== session.userId && <button type="button" class="outline secondary small" onClick={() => void remove(u)}>Delete</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}
