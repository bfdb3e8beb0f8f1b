/**
 * Frame of every signed-in page: header (who is signed in, waiting handoffs), navigation and the page. The
 * admin pages are not in an operator's navigation at all; their routes refuse too (pages/Guards.tsx).
 */
import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { useApi } from './hooks';
import { useApp } from './session';

interface NavItem { href: string; label: string; admin?: boolean }

const NAV: NavItem[] = [
  { href: '/app', label: 'Overview' },
  { href: '/app/live', label: 'Live calls' },
  { href: '/app/handoffs', label: 'Handoffs' },
  { href: '/app/calls', label: 'Call history' },
  { href: '/app/leads', label: 'Leads & DND' },
  { href: '/app/campaigns', label: 'Campaigns' },
  { href: '/app/agents', label: 'Agents' },
  { href: '/app/users', label: 'Users', admin: true },
  { href: '/app/api-keys', label: 'API keys', admin: true },
  { href: '/app/integrations', label: 'Integrations', admin: true },
];

/** Dispatched on window by a page that changed a handoff, so the waiting count follows at once. */
export const HANDOFFS_CHANGED = 'voicecall:handoffs-changed';

interface HandoffList { data: Array<{ handoff_state: string }> }

export function Shell({ children, onSignOut }: { children: ComponentChildren; onSignOut: () => void }) {
  const { session, isAdmin, settings } = useApp();
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const handoffs = useApi<HandoffList>('/handoffs', { pollMs: 4000 });
  const waiting = handoffs.data?.data.filter((h) => h.handoff_state === 'waiting').length ?? 0;
  useEffect(() => setMenuOpen(false), [path]);
  useEffect(() => {
    const refresh = () => void handoffs.reload();
    window.addEventListener(HANDOFFS_CHANGED, refresh);
    return () => window.removeEventListener(HANDOFFS_CHANGED, refresh);
  }, [handoffs.reload]);

  const current = (href: string) => (href === '/app' ? path === '/app' || path === '/app/' : path === href || path.startsWith(`${href}/`));
  return (
    <div class="shell">
      <a class="skip-link" href="#content">Skip to content</a>
      <header class="topbar">
        <a class="brand" href="/app"><img src="/favicon.svg" alt="" width="26" height="26" /> voicecall <span class="muted">operator</span></a>
        {settings.service_mode === 'simulator' && <span class="badge warn" title="Calls are simulated: no real phone is dialed">simulator</span>}
        <div class="who">
          <span class="user">{session.email} <span class="badge">{session.role}</span></span>
          <button type="button" class="outline secondary small" onClick={onSignOut}>Sign out</button>
          <button type="button" class="menu-toggle outline small" aria-expanded={menuOpen} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>Menu</button>
        </div>
      </header>
      <nav id="main-nav" class={`sidenav ${menuOpen ? 'open' : ''}`} aria-label="Main">
        <ul>
          {NAV.filter((n) => !n.admin).map((n) => (
            <li key={n.href}>
              <a href={n.href} aria-current={current(n.href) ? 'page' : undefined}>
                {n.label}
                {n.href === '/app/handoffs' && waiting > 0 && (
                  <span class="badge warn count" data-testid="waiting-count">{waiting}<span class="visually-hidden"> waiting</span></span>
                )}
              </a>
            </li>
          ))}
        </ul>
        {isAdmin && (
          <>
            <p class="nav-section" id="admin-nav">Administration</p>
            <ul aria-labelledby="admin-nav">
              {NAV.filter((n) => n.admin).map((n) => (
                <li key={n.href}><a href={n.href} aria-current={current(n.href) ? 'page' : undefined}>{n.label}</a></li>
              ))}
            </ul>
          </>
        )}
      </nav>
      <main id="content" class="content">{children}</main>
    </div>
  );
}
