import { signal } from '@preact/signals';
import { shownRows } from '../stores/fleet-groups.js';
import { INBOX_HREF, route, threadHref } from '../stores/route.js';
import { neighbour, shortcutFor, type ShortcutAction } from './shortcuts.js';

/** Whether the shortcuts dialog is shown. */
export const helpOpen = signal(false);

/** The element `/` focuses: whichever text field a screen marks as its main input (the thread's composer). */
export const COMPOSE_SELECTOR = '[data-shortcut="compose"]';

const isTyping = (el: Element | null) =>
  el instanceof HTMLTextAreaElement ||
  el instanceof HTMLSelectElement ||
  (el instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit'].includes(el.type)) ||
  (el instanceof HTMLElement && el.isContentEditable);

function perform(action: ShortcutAction): void {
  const r = route.value;
  const open = r.screen === 'thread' ? r.agent : null;
  switch (action) {
    case 'help':
      helpOpen.value = !helpOpen.value;
      return;
    case 'close':
      if (helpOpen.value) helpOpen.value = false;
      else if (isTyping(document.activeElement)) (document.activeElement as HTMLElement).blur();
      else if (r.screen !== 'fleet') location.hash = '#/';
      return;
    case 'fleet':
      location.hash = '#/';
      return;
    case 'inbox':
      location.hash = INBOX_HREF;
      return;
    case 'next-thread':
    case 'previous-thread': {
      const next = neighbour(
        shownRows.value.map((a) => a.name),
        open,
        action === 'next-thread' ? 1 : -1,
      );
      if (next) location.hash = threadHref(next);
      return;
    }
    case 'compose':
      document.querySelector<HTMLElement>(COMPOSE_SELECTOR)?.focus();
      return;
  }
}

/** Listens for the shortcuts on the document; returns the way to stop. */
export function bindShortcuts(): () => void {
  let previous: string | null = null;
  const onKey = (e: KeyboardEvent) => {
    if (e.isComposing || e.repeat) return;
    const action = shortcutFor(
      { key: e.key, altKey: e.altKey, ctrlKey: e.ctrlKey, metaKey: e.metaKey, typing: isTyping(e.target as Element) },
      previous,
    );
    previous = e.key === 'g' && !isTyping(e.target as Element) ? 'g' : null;
    if (!action) return;
    e.preventDefault();
    perform(action);
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}
