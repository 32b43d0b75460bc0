import { z } from 'zod';

/**
 * The keys the app's key bar may press: the few that steer an agent (leave a menu, interrupt, move, pick, confirm,
 * answer y/n or a numbered choice). Named keys only: text goes through a chat message, which is made inert and waits
 * for dialogs; these exist precisely to answer what is on the screen.
 */
export const TERMINAL_KEYS = [
  'Escape',
  'C-c',
  'Up',
  'Down',
  'Left',
  'Right',
  'Tab',
  'BTab',
  'Enter',
  'BSpace',
  'Space',
  'PageUp',
  'PageDown',
  'y',
  'n',
  '1',
  '2',
  '3',
  '4',
  '5',
  '6',
  '7',
  '8',
  '9',
] as const;

/** One key the key bar may press. */
export type TerminalKey = (typeof TERMINAL_KEYS)[number];

/**
 * What an agent's terminal shows: the visible pane as tmux draws it, escape sequences (colours, bold) included, so a
 * terminal emulator in the app reproduces it; the cursor; the size; the key that interrupts it. Pure module (zod only): the web app imports it.
 */
export const TerminalScreen = z.object({
  agent: z.string(),
  cols: z.number().int().positive(),
  rows: z.number().int().positive(),
  cursor: z.object({ x: z.number().int().nonnegative(), y: z.number().int().nonnegative() }),
  /** The rows joined by `\n`, with SGR sequences (`capture-pane -e`). Untrusted: whatever the agent printed. */
  ansi: z.string(),
  captured_at: z.string(),
  /** The key that interrupts the agent's harness (its adapter says): Escape for an agent CLI, C-c for a shell. */
  interrupt: z.enum(TERMINAL_KEYS),
});
export type TerminalScreen = z.infer<typeof TerminalScreen>;

/** POST /api/v1/agents/:name/terminal/keys: how many keys were pressed. */
export const KeysPressed = z.object({ agent: z.string(), pressed: z.number().int() });

export const TerminalKeysBody = z.strictObject({
  keys: z.array(z.enum(TERMINAL_KEYS)).min(1).max(16),
});
export type TerminalKeysBody = z.infer<typeof TerminalKeysBody>;
