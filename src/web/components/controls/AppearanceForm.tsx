import { useEffect, useRef, useState } from 'preact/hooks';
import type { Agent } from '../../../wire/fleet.js';
import { api } from '../../stores/auth.js';
import { useAction } from './useAction.js';

/** The colour picker holds only `#rrggbb`; a rule's colour in another CSS form starts it at grey and is kept until changed. */
const HEX = /^#[0-9a-f]{6}$/i;

/**
 * An agent's emoji and colour. What the owner sets here wins over `appearance_rules` (the daemon marks it `manual`);
 * "Use the rules" clears both, so the rules decide again.
 */
export function AppearanceForm({ agent }: { agent: Agent }) {
  const { busy, error, run } = useAction();
  const current = agent.appearance ?? {};
  const [emoji, setEmoji] = useState(current.emoji ?? '');
  const [color, setColor] = useState(current.color ?? '');
  // Follows the agent's appearance when it changes (saved here or elsewhere), not at mount: an effect runs after the
  // first paint, and what the owner typed by then would be wiped.
  const shown = useRef({ emoji: current.emoji, color: current.color });
  useEffect(() => {
    if (shown.current.emoji === current.emoji && shown.current.color === current.color) return;
    shown.current = { emoji: current.emoji, color: current.color };
    setEmoji(current.emoji ?? '');
    setColor(current.color ?? '');
  }, [current.emoji, current.color]);
  const changed = emoji !== (current.emoji ?? '') || color !== (current.color ?? '');
  const manual = current.emoji_source === 'manual' || current.color_source === 'manual';
  return (
    <form
      class="control-form appearance-form"
      onSubmit={(e) => {
        e.preventDefault();
        void run('appearance', () =>
          api.setAppearance(agent.name, { emoji: emoji.trim() || null, color: color.trim() || null }),
        );
      }}
    >
      <label for="appearance-emoji">Emoji and colour</label>
      <div class="control-row">
        <input
          id="appearance-emoji"
          class="appearance-emoji"
          value={emoji}
          maxLength={16}
          placeholder={agent.display_name.slice(0, 1).toUpperCase()}
          aria-label="Emoji"
          onInput={(e) => setEmoji((e.target as HTMLInputElement).value)}
        />
        <input
          type="color"
          aria-label="Colour"
          value={HEX.test(color) ? color : '#888888'}
          onInput={(e) => setColor((e.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={!!busy || !changed}>
          {busy === 'appearance' ? 'Saving…' : 'Save'}
        </button>
        {manual && (
          <button
            type="button"
            disabled={!!busy}
            onClick={() => void run('appearance', () => api.setAppearance(agent.name, { emoji: null, color: null }))}
          >
            Use the rules
          </button>
        )}
      </div>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
