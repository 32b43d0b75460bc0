import { useEffect } from 'preact/hooks';
import { tasks, tasksError, watchTasks } from '../../stores/tasks.js';
import { taskHref } from '../../stores/route.js';
import { ScreenBar } from '../ScreenBar.js';
import { formatWhen } from './format.js';
import { RunStatus } from './RunStatus.js';
import './tasks.css';

/** `#/tasks`: every task from leo.yaml with its schedule, next run, owner and how its last run went. */
export function TasksScreen() {
  useEffect(watchTasks, []);
  const list = tasks.value;
  return (
    <section class="screen tasks-screen" data-screen="tasks">
      <ScreenBar title="Tasks" back="#/" backLabel="Back to the fleet" />
      <main>
        {tasksError.value && (
          <p class="form-error" role="alert">
            {tasksError.value}
          </p>
        )}
        {list && list.length === 0 && (
          <p class="empty">
            No tasks. Tasks are scheduled in <code>leo.yaml</code>'s <code>tasks:</code>.
          </p>
        )}
        <ul class="task-list" aria-label="Tasks">
          {list?.map((t) => (
            <li key={t.name} data-task={t.name}>
              <a class="task-link" href={taskHref(t.name)}>
                <span class="task-name">{t.name}</span>
                {t.runs[0] ? <RunStatus status={t.runs[0].status} /> : <span class="muted">never run</span>}
                <span class="task-sched">
                  <code>{t.schedule}</code>
                  {t.enabled ? ` · next ${formatWhen(t.next_run_at)}` : ' · disabled'}
                </span>
                <span class="muted task-owner">cards to {t.owner}</span>
              </a>
            </li>
          ))}
        </ul>
      </main>
    </section>
  );
}
