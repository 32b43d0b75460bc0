/**
 * The headers a caller of the agent tools identifies itself by. A headless task run sets the task ones so its posts
 * become task cards; a subagent started by `leo_dispatch` sets the dispatch one and is refused, because the spec gives
 * the tools to supervised agents and task runs only (a subagent has no thread of its own to post into).
 */
export const CallerHeaders = {
  task: 'x-leo-task',
  runId: 'x-leo-run-id',
  dispatch: 'x-leo-dispatch',
} as const;

/** The environment variables `leo mcp-stdio` turns into those headers. */
export const CallerEnv = {
  [CallerHeaders.task]: 'LEO_TASK',
  [CallerHeaders.runId]: 'LEO_RUN_ID',
  [CallerHeaders.dispatch]: 'LEO_DISPATCH',
} as const;
