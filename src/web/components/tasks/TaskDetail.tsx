import { useEffect, useState } from 'preact/hooks';
import { api } from '../../stores/auth.js';
import { loadTasks, tasks, tasksError, watchTasks } from '../../stores/tasks.js';
import { TASKS_HREF, taskHref, threadHref } from '../../stores/route.js';
import { ScreenBar } from '../ScreenBar.js';
import { useAction } from '../controls/useAction.js';
import { formatDuration, formatWhen } from './format.js';
import { RunStatus } from './RunStatus.js';
import { RunLogView } from './RunLogView.js';
import { mayRunFleet } from '../../stores/caller.js';
import { NoFleetNote } from '../controls/NoFleetNote.js';
import './tasks.css';

/**
 * `#/tasks/<task>`: one task — schedule, next run, owner, where it runs — its newest runs, and "Run now".
 * `#/tasks/<task>/runs/<id>` opens that run's log below the runs.
 */
export function TaskDetail({ task, run }: { task: string; run?: string }) {
  useEffect(watchTasks, []);
  const { busy, error, run: act } = useAction();
  const [started, setStarted] = useState<string | null>(null);
  const t = tasks.value?.find((x) => x.name === task);
  if (!t)
    return (
      <section class="screen task-screen" data-screen="task">
        <ScreenBar title={task} back={TASKS_HREF} backLabel="Back to the tasks" badge={false} />
        <main>
          {tasks.value && <p class="empty">There is no task named {task}.</p>}
          {tasksError.value && <p class="form-error">{tasksError.value}</p>}
        </main>
      </section>
    );
  const running = t.runs.some((r) => r.status === 'running');
  return (
    <section class="screen task-screen" data-screen="task" data-task={task}>
      <ScreenBar title={task} back={TASKS_HREF} backLabel="Back to the tasks" />
      <main class="control-groups">
        <dl class="task-facts">
          <dt>Schedule</dt>
          <dd>
            <code>{t.schedule}</code> ({t.timezone}){t.enabled ? '' : ' · disabled'}
          </dd>
          <dt>Next run</dt>
          <dd data-next-run>{t.enabled ? formatWhen(t.next_run_at) : '—'}</dd>
          <dt>Owner</dt>
          <dd>
            <a href={threadHref(t.owner)}>{t.owner}</a>
          </dd>
          <dt>Runs</dt>
          <dd>
            {t.runtime} · {t.harness}
            {t.model ? ` · ${t.model}` : ''}
          </dd>
          <dt>Workspace</dt>
          <dd class="task-ws">{t.workspace}</dd>
        </dl>
        {error && (
          <p class="form-error" role="alert">
            {error}
          </p>
        )}
        {!mayRunFleet.value ? (
          <NoFleetNote what="Running a task now" />
        ) : (
          <div class="control-row">
            <button
              type="button"
              class="primary"
              disabled={!!busy || running}
              onClick={() =>
                void act('run', () => api.runTask(task)).then((r) => {
                  if (!r) return;
                  setStarted(r.run_id);
                  void loadTasks();
                })
              }
            >
              {busy ? 'Starting…' : running ? 'Running…' : 'Run now'}
            </button>
            {started && (
              <span class="muted" role="status">
                Started run {started}
              </span>
            )}
          </div>
        )}
        <h2 class="task-h2">Recent runs</h2>
        {t.runs.length === 0 ? (
          <p class="empty">No runs yet.</p>
        ) : (
          <ol class="run-list" aria-label="Recent runs">
            {t.runs.map((r) => (
              <li key={r.id} data-run={r.id} aria-current={r.id === run ? 'true' : undefined}>
                <RunStatus status={r.status} />
                <span class="run-when">{formatWhen(r.started_at)}</span>
                <span class="muted run-dur">{formatDuration(r.duration_ms)}</span>
                {t.runtime === 'oneshot' && (
                  <a class="run-log-link" href={taskHref(task, r.id)}>
                    Log
                  </a>
                )}
                {r.error && <p class="run-error">{r.error}</p>}
              </li>
            ))}
          </ol>
        )}
        {run && (
          <RunLogView
            key={run}
            task={task}
            run={run}
            running={t.runs.some((r) => r.id === run && r.status === 'running')}
          />
        )}
      </main>
    </section>
  );
}
