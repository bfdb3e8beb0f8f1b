/** Loads the run-time settings, then renders the page; a page that cannot start says why instead of staying blank. */
import { render, type ComponentChildren } from 'preact';
import { loadSettings, type RuntimeSettings } from './settings';

export async function boot(page: (settings: RuntimeSettings) => ComponentChildren): Promise<void> {
  const root = document.getElementById('root')!;
  try {
    render(page(await loadSettings()), root);
  } catch (err) {
    render(<main class="container"><h1>This page could not start</h1><p role="alert">{String((err as Error).message ?? err)}</p></main>, root);
  }
}
