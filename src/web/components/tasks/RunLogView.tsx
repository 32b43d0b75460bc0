import { useEffect, useRef, useState } from 'preact/hooks';
import type { RunLogTail } from '../../../wire/tasks.js';
import { api, onUnpaired } from '../../stores/auth.js';
import { taskHref } from '../../stores/route.js';

/** How often a running run's log is read again while it is on screen. */
const FOLLOW_MS = 1500;

/**
 * One run's log (its last 256 KB), read-only, as text; scrolled to its end, where a failure says why. A running run's
 * log is read again every moment while the page is visible, and once more when the run ends; it stays at its end
 * unless the reader scrolled up.
 */
export function RunLogView({ task, run, running }: { task: string; run: string; running: boolean }) {
  const [log, setLog] = useState<RunLogTail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pre = useRef<HTMLPreElement>(null);
  const atEnd = useRef(true);
  useEffect(() => {
    const read = () =>
      api.runLog(task, run).then(
        (l) => {
          setLog(l);
          setError(null);
        },
        async (err: unknown) => {
          if (!(await onUnpaired(err))) setError(err instanceof Error ? err.message : String(err));
        },
      );
    void read();
    if (!running) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void read();
    }, FOLLOW_MS);
    return () => clearInterval(timer);
  }, [task, run, running]);
  useEffect(() => {
    const el = pre.current;
    if (el && atEnd.current) el.scrollTop = el.scrollHeight;
  }, [log]);
  useEffect(() => {
    pre.current?.closest('.run-log')?.scrollIntoView({ block: 'nearest' });
  }, [log !== null]);
  return (
    <section class="run-log" aria-label={`Log of run ${run}`} data-log={run}>
      <div class="run-log-head">
        <h2 class="task-h2">
          Log · {run}
          {running && <span class="muted run-following"> · running, following</span>}
        </h2>
        <a href={taskHref(task)} aria-label="Close the log">
          Close
        </a>
      </div>
      {error && <p class="form-error">{error}</p>}
      {log?.truncated && (
        <p class="muted">
          The last {Math.round(log.text.length / 1024)} KB of {Math.round(log.bytes / 1024)} KB.
        </p>
      )}
      {log && (
        <pre
          ref={pre}
          class="log-text"
          tabIndex={0}
          onScroll={(e) => {
            const el = e.currentTarget;
            atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
          }}
        >
          {log.text || '(empty)'}
        </pre>
      )}
    </section>
  );
}
