import { useEffect, useRef } from 'preact/hooks';
import { helpOpen } from '../keys/bind-shortcuts.js';
import { SHORTCUTS } from '../keys/shortcuts.js';
import './shortcuts.css';

/**
 * The keyboard shortcuts, listed from the same table the listener obeys. A native modal <dialog>: it traps focus,
 * closes on Escape and gives focus back to where it was.
 */
export function ShortcutHelp() {
  const ref = useRef<HTMLDialogElement>(null);
  const open = helpOpen.value;
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} class="shortcuts" aria-labelledby="shortcuts-title" onClose={() => (helpOpen.value = false)}>
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <dl>
        {SHORTCUTS.map((s) => (
          <div key={s.action} class="shortcut">
            <dt>
              {s.keys.split('  or  ').map((k, i) => (
                <span key={k}>
                  {i > 0 && ' or '}
                  {k.split(' ').map((part) => (
                    <kbd key={part}>{part}</kbd>
                  ))}
                </span>
              ))}
            </dt>
            <dd>{s.what}</dd>
          </div>
        ))}
      </dl>
      <form method="dialog">
        <button type="submit" class="primary">
          Close
        </button>
      </form>
    </dialog>
  );
}
