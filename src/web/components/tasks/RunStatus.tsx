import type { TaskRun } from '../../../wire/fleet.js';

const LABEL: Record<TaskRun['status'], string> = { running: 'Running', succeeded: 'Succeeded', failed: 'Failed' };

/** A run's status as a word with a coloured dot (the word carries it; the colour only repeats it). */
export const RunStatus = ({ status }: { status: TaskRun['status'] }) => (
  <span class={`run-status run-${status}`} data-run-status={status}>
    {LABEL[status]}
  </span>
);
