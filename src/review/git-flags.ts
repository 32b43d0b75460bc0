/**
 * Before every git command on a workspace: paths are taken literally (no `*` or `:(magic)` from a file name), printed
 * verbatim, and no fsmonitor daemon the repository names is started. A module of its own: the pool thread's change
 * summary uses it and must not load the wire shapes (zod, ~10 MB a thread).
 */
export const GIT_FLAGS = ['--literal-pathspecs', '-c', 'core.quotePath=false', '-c', 'core.fsmonitor=false'];
