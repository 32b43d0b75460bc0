import { useEffect, useRef, useState } from 'preact/hooks';
import type { RunLogTail } from '../../../tasks/task-wire.js';
import { api, onUnpaired } from '../../stores/auth.js';
import { taskHref } from '../../stores/route.js';

/** One run's log (its last 256 KB), read-only, as text; scrolled to its end, where a failure says why. */
export function RunLogView({ task, run }: { task: string; run: string }) {
  const [log, setLog] = useState<RunLogTail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => {
    api.runLog(task, run).then(setLog, async (err: unknown) => {
      if (!(await onUnpaired(err))) setError(err instanceof Error ? err.message : String(err));
    });
  }, [task, run]);
  useEffect(() => {
    const el = pre.current;
    if (el) el.scrollTop = el.scrollHeight;
    el?.closest('.run-log')?.scrollIntoView({ block: 'nearest' });
  }, [log]);
  return (
    <section class="run-log" aria-label={`Log of run ${run}`} data-log={run}>
      <div class="run-log-head">
        <h2 class="task-h2">Log · {run}</h2>
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
        <pre ref={pre} class="log-text" tabIndex={0}>
          {log.text || '(empty)'}
        </pre>
      )}
    </section>
  );
}
