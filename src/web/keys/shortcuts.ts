/**
 * Desktop keyboard shortcuts as a pure table: which key, pressed where, does what. Kept apart from the DOM so the
 * table the help dialog lists is the one the listener obeys.
 */
export type ShortcutAction = 'help' | 'close' | 'fleet' | 'inbox' | 'next-thread' | 'previous-thread' | 'compose';

export interface KeyPress {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  /** Focus is in a text field: single letters are typing there, not commands. */
  typing: boolean;
}

export const SHORTCUTS: readonly { keys: string; action: ShortcutAction; what: string }[] = [
  { keys: '?', action: 'help', what: 'Show these shortcuts' },
  { keys: 'Esc', action: 'close', what: 'Close this, leave a text field, or go back to the fleet' },
  { keys: 'g f', action: 'fleet', what: 'Go to the fleet' },
  { keys: 'g i', action: 'inbox', what: 'Go to the inbox' },
  { keys: 'j  or  Alt+↓', action: 'next-thread', what: "Next agent's thread" },
  { keys: 'k  or  Alt+↑', action: 'previous-thread', what: "Previous agent's thread" },
  { keys: '/', action: 'compose', what: 'Write a message in the open thread' },
];

/**
 * The action for a key press, given the key before it (`g` starts a two-key sequence). Alt+arrows work from inside a
 * text field too, so the owner can move between threads while writing; nothing else does but Escape.
 */
export function shortcutFor(press: KeyPress, previousKey: string | null): ShortcutAction | null {
  if (press.ctrlKey || press.metaKey) return null;
  if (press.key === 'Escape') return 'close';
  if (press.altKey) {
    if (press.key === 'ArrowDown') return 'next-thread';
    if (press.key === 'ArrowUp') return 'previous-thread';
    return null;
  }
  if (press.typing) return null;
  if (previousKey === 'g') {
    if (press.key === 'f') return 'fleet';
    if (press.key === 'i') return 'inbox';
  }
  switch (press.key) {
    case '?':
      return 'help';
    case 'j':
      return 'next-thread';
    case 'k':
      return 'previous-thread';
    case '/':
      return 'compose';
    default:
      return null;
  }
}

/** The agent `step` places after `current` in the fleet's order, wrapping; the first (or last) when none is open. */
export function neighbour(order: readonly string[], current: string | null, step: 1 | -1): string | null {
  if (order.length === 0) return null;
  const i = current === null ? -1 : order.indexOf(current);
  if (i < 0) return step === 1 ? order[0]! : order[order.length - 1]!;
  return order[(i + step + order.length) % order.length]!;
}
