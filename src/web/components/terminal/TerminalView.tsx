import { useEffect, useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import type { TerminalKeysBody } from '../../../wire/terminal.js';
import { terminalLines, type TermRun } from '../../render/terminal-lines.js';
import { agents } from '../../stores/fleet.js';
import {
  closeTerminal,
  openTerminal,
  press,
  screen,
  terminalNote,
  terminalState,
  typing,
} from '../../stores/terminal.js';

type Key = TerminalKeysBody['keys'][number];

const KEYS: readonly { keys: Key[]; label: string; name: string }[] = [
  { keys: ['Escape'], label: 'Esc', name: 'Escape' },
  { keys: ['C-c'], label: 'Ctrl-C', name: 'Control C' },
  { keys: ['Tab'], label: 'Tab', name: 'Tab' },
  { keys: ['Up'], label: '↑', name: 'Up' },
  { keys: ['Down'], label: '↓', name: 'Down' },
  { keys: ['Left'], label: '←', name: 'Left' },
  { keys: ['Right'], label: '→', name: 'Right' },
  { keys: ['y'], label: 'y', name: 'y' },
  { keys: ['n'], label: 'n', name: 'n' },
  { keys: ['Enter'], label: 'Enter ⏎', name: 'Enter' },
];

const STATE = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', ended: 'Ended' } as const;

/** Colours and attributes through the CSSOM (Preact's style prop), which the strict CSP allows; never markup. */
function look(run: TermRun): Record<string, string> {
  const fg = run.inverse ? run.bg : run.fg;
  const bg = run.inverse ? (run.fg ?? 'var(--term-fg)') : run.bg;
  const style: Record<string, string> = {};
  if (fg) style.color = fg.startsWith('var(') ? fg : `rgb(${fg})`;
  else if (run.inverse) style.color = 'var(--term-bg)';
  if (bg) style.backgroundColor = bg.startsWith('var(') ? bg : `rgb(${bg})`;
  if (run.bold) style.fontWeight = '700';
  if (run.dim) style.opacity = '0.6';
  if (run.italic) style.fontStyle = 'italic';
  if (run.underline) style.textDecoration = 'underline';
  return style;
}

/**
 * An agent's live terminal, read-only until the owner turns on typing: then a key bar with the keys that steer an
 * agent, and Interrupt (Esc for the coding CLIs, Ctrl-C for a shell). Loaded only when opened.
 */
export function TerminalView({ agent }: { agent: string }) {
  useEffect(() => {
    openTerminal(agent);
    return closeTerminal;
  }, [agent]);
  const s = screen.value;
  // The blank rows under the last output and the cursor are left out, so following the bottom shows the latest.
  const rows = useMemo(() => {
    if (!s) return [];
    const all = terminalLines(s.ansi);
    let end = all.length;
    while (end > s.cursor.y + 1 && all[end - 1]!.every((run) => run.text.trim() === '')) end--;
    return all.slice(0, end);
  }, [s?.ansi, s?.cursor.y]);
  const box = useRef<HTMLPreElement>(null);
  // Follow the bottom of the screen as it changes, like a terminal, unless the owner scrolled up to read.
  const atBottom = useRef(true);
  const follow = () => {
    const el = box.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  };
  useLayoutEffect(follow, [rows]);
  // And when the box shrinks (the key bar appearing under it, a phone's keyboard opening), or the last rows would sit
  // hidden below it until the pane next changes.
  useEffect(() => {
    const resized = new ResizeObserver(follow);
    resized.observe(box.current!);
    return () => resized.disconnect();
  }, []);
  const harness = agents.value.get(agent)?.harness;
  // eslint-disable-next-line no-restricted-syntax -- left for the agent view to carry its harness's interrupt key
  const interrupt: Key = harness === 'shell' ? 'C-c' : 'Escape';
  const state = terminalState.value;
  return (
    <section class="terminal" data-terminal={agent} data-state={state} aria-label={`${agent}'s terminal`}>
      <div class="term-head">
        <span class={`term-state term-${state}`}>{STATE[state]}</span>
        {s && (
          <span class="muted term-size">
            {s.cols}×{s.rows}
          </span>
        )}
        <label class="term-switch">
          <input
            type="checkbox"
            checked={typing.value}
            onChange={(e) => (typing.value = (e.target as HTMLInputElement).checked)}
            disabled={state === 'ended'}
          />{' '}
          Type into the terminal
        </label>
      </div>
      <pre
        class="term"
        ref={box}
        tabIndex={0}
        aria-label="Terminal screen"
        onScroll={(e) => {
          const el = e.currentTarget;
          atBottom.current = el.scrollHeight - el.clientHeight - el.scrollTop < 24;
        }}
      >
        {rows.map((row, i) => (
          <div class="term-row" key={i}>
            {row.map((run, j) => (
              <span key={j} style={look(run)}>
                {run.text}
              </span>
            ))}
            {row.length === 0 && ' '}
          </div>
        ))}
      </pre>
      {terminalNote.value && (
        <p class="term-note" role="status">
          {terminalNote.value}
        </p>
      )}
      {typing.value && state !== 'ended' && (
        <div class="keybar" role="toolbar" aria-label={`Keys for ${agent}`}>
          <button type="button" class="key key-interrupt" onClick={() => void press([interrupt])}>
            Interrupt
          </button>
          {KEYS.map((k) => (
            <button
              type="button"
              class="key"
              key={k.name}
              aria-label={`Press ${k.name}`}
              onClick={() => void press(k.keys)}
            >
              {k.label}
            </button>
          ))}
        </div>
      )}
    </section>
  );
}
