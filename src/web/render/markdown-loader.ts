import { signal } from '@preact/signals';

type Render = (text: string) => string;

/**
 * markdown-it and DOMPurify are most of the app's bytes, and the fleet needs neither: they load the first time a
 * thread shows an agent's message. Until then (and if the import fails) messages show as plain text; a component that
 * reads `markdown` re-renders when it arrives.
 */
export const markdown = signal<Render | null>(null);

let loading: Promise<void> | null = null;

export function loadMarkdown(): Promise<void> {
  loading ??= import('./markdown.js').then(
    (m) => void (markdown.value = m.renderMarkdown),
    () => void (loading = null),
  );
  return loading;
}
