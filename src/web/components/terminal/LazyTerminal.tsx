import { useEffect, useState } from 'preact/hooks';
import type { TerminalView as View } from './TerminalView.js';
import './terminal.css';

/** The terminal view and its ANSI reader load the first time a terminal is opened: the app shell stays small. */
export function LazyTerminal({ agent }: { agent: string }) {
  const [Loaded, setLoaded] = useState<typeof View | null>(null);
  useEffect(() => {
    let live = true;
    void import('./TerminalView.js').then((m) => live && setLoaded(() => m.TerminalView));
    return () => void (live = false);
  }, []);
  return Loaded ? (
    <Loaded agent={agent} />
  ) : (
    <section class="terminal" aria-busy="true">
      <p class="muted term-note">Opening the terminal…</p>
    </section>
  );
}
