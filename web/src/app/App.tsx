/** The operator app: sign-in, then the shell with its pages. The session (token) exists only in this state. */
import { LocationProvider, Route, Router } from 'preact-iso';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { resolveBase, type RuntimeSettings } from '../shared/settings';
import { Login } from './Login';
import { Api, Ctx, type Session } from './session';
import { Shell } from './Shell';
import { AdminOnly, NotFound } from './pages/Guards';
import { Dashboard } from './pages/Dashboard';
import { LiveCalls } from './pages/LiveCalls';
import { Calls } from './pages/Calls';
import { CallPage } from './pages/CallPage';
import { Handoffs } from './pages/Handoffs';
import { Agents } from './pages/Agents';
import { Leads } from './pages/Leads';
import { Campaigns } from './pages/Campaigns';
import { Integrations } from './pages/Integrations';
import { ApiKeys } from './pages/ApiKeys';
import { Users } from './pages/Users';

export function App({ settings }: { settings: RuntimeSettings }) {
  const base = resolveBase(settings.service_api_base);
  const [session, setSession] = useState<Session>();
  const [notice, setNotice] = useState<string>();

  const end = (why?: string) => { setSession(undefined); setNotice(why); };
  const api = useMemo(() => (session ? new Api(session, () => end('Your session expired. Please sign in again.')) : undefined), [session]);

  // Sign out when the token expires rather than on the first refused request.
  useEffect(() => {
    if (!session) return;
    const timer = setTimeout(() => end('Your session expired. Please sign in again.'), Math.max(0, session.expiresAt - Date.now() - 5000));
    return () => clearTimeout(timer);
  }, [session]);

  if (!session || !api) return <Login base={base} notice={notice} onLogin={(s) => { setNotice(undefined); setSession(s); }} />;

  const admin = (page: () => preact.JSX.Element) => () => <AdminOnly>{page()}</AdminOnly>;
  return (
    <Ctx.Provider value={{ api, session, settings, isAdmin: session.role === 'admin' }}>
      <LocationProvider scope="/app">
        <Shell onSignOut={() => end('You are signed out.')}>
          <Router>
            <Route path="/app" component={Dashboard} />
            <Route path="/app/live" component={LiveCalls} />
            <Route path="/app/calls" component={Calls} />
            <Route path="/app/calls/:id" component={CallPage} />
            <Route path="/app/handoffs" component={Handoffs} />
            <Route path="/app/agents" component={Agents} />
            <Route path="/app/leads" component={Leads} />
            <Route path="/app/campaigns" component={Campaigns} />
            <Route path="/app/integrations" component={admin(() => <Integrations />)} />
            <Route path="/app/api-keys" component={admin(() => <ApiKeys />)} />
            <Route path="/app/users" component={admin(() => <Users />)} />
            <Route default component={NotFound} />
          </Router>
        </Shell>
      </LocationProvider>
    </Ctx.Provider>
  );
}
