/**
 * A page of the app: sets the document title and moves focus to the heading when it opens, so keyboard and
 * screen-reader users land on the new content after navigating.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function Page({ title, intro, actions, children }: { title: string; intro?: ComponentChildren; actions?: ComponentChildren; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · voicecall operator`;
    heading.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <section class="page">
      <header class="page-head">
        <div>
          <h1 tabIndex={-1} ref={heading}>{title}</h1>
          {intro && <p class="muted intro">{intro}</p>}
        </div>
        {actions && <div class="page-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

export function Loading({ what }: { what: string }) {
  return <p aria-busy="true">Loading {what}…</p>;
}

export function ErrorNote({ error }: { error?: string }) {
  return error ? <p class="error" role="alert">{error}</p> : null;
}
