/** Sign-in with a tenant user's email and password; the token it returns stays in memory. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from '../shared/http';
import { login, type Session } from './session';

export function Login({ base, onLogin, notice }: { base: string; onLogin: (s: Session) => void; notice?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [pending, setPending] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => { document.title = 'Sign in · voicecall operator'; first.current?.focus(); }, []);

  async function submit(ev: Event) {
    ev.preventDefault();
    setPending(true);
    setError(undefined);
    try {
      onLogin(await login(base, email.trim(), password));
    } catch (err) {
      setError(describeError(err));
      setPending(false);
    }
  }

  return (
    <main class="login container">
      <article>
        <header>
          <h1><img src="/favicon.svg" alt="" width="32" height="32" /> voicecall operator</h1>
          <p class="muted">Sign in with your team account to watch calls, take over conversations and read results.</p>
        </header>
        {notice && <p class="notice" role="status">{notice}</p>}
        <form onSubmit={submit}>
          <label for="email">Email</label>
          <input id="email" ref={first} type="email" autocomplete="username" required value={email}
            onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
          <label for="password">Password</label>
          <input id="password" type="password" autocomplete="current-password" required value={password}
            onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />
          {error && <p class="error" role="alert">{error}</p>}
          <button type="submit" aria-busy={pending} disabled={pending}>Sign in</button>
        </form>
        <p class="hint">You stay signed in while this tab is open: the session is kept in the page only, so reloading
          or opening a new tab asks for your password again.</p>
        <footer><a href="/">← Back to the public demo</a></footer>
      </article>
    </main>
  );
}
