/** Route guards: admin pages for admins only (the API refuses them anyway), and the not-found page. */
import type { ComponentChildren } from 'preact';
import { useApp } from '../session';
import { Page } from '../components/Page';

export function AdminOnly({ children }: { children: ComponentChildren }) {
  const { isAdmin } = useApp();
  if (isAdmin) return <>{children}</>;
  return (
    <Page title="Administrators only">
      <p role="alert">This page is for administrators. Ask an admin of your team if you need something changed here.</p>
      <p><a href="/app">Go to the overview</a></p>
    </Page>
  );
}

export function NotFound() {
  return (
    <Page title="Page not found">
      <p>There is no page at this address. <a href="/app">Go to the overview</a>.</p>
    </Page>
  );
}
