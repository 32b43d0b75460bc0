/**
 * The one `list-sessions -F` format the activity sweep reads the whole fleet with, and its parser. Pure, so the
 * parser is tested over recorded tmux output.
 */

export interface SessionInfo {
  name: string;
  /**
   * Epoch seconds of the session's last activity: the later of session_activity and the current window's
   * window_activity. tmux 3.3a moves session_activity only on a client's keystrokes, never on pane output (checked
   * against the real server), while window_activity moves on every byte the pane prints; together they cover both
   * output and interactive input.
   */
  activity: number;
  /** Attached clients. */
  attached: number;
  /** The active pane's process, null when tmux reports none. */
  panePid: number | null;
  /** The pane's command has exited and the pane stays because of remain-on-exit. */
  paneDead: boolean;
  /** Exit status of a dead pane whose command exited; null while alive or when a signal ended it. */
  deadStatus: number | null;
  /** Signal that ended a dead pane's command, null otherwise. */
  deadSignal: number | null;
  /** Epoch seconds the session was created (Leo creates one per start of an agent); null when tmux reports none. */
  created: number | null;
}

const FIELDS = [
  'session_activity',
  'window_activity',
  'session_attached',
  'pane_pid',
  'pane_dead',
  'pane_dead_status',
  'pane_dead_signal',
  'session_created',
  // Last, so the parse never depends on what a name contains: everything after the eighth tab is the name.
  'session_name',
] as const;

export const LIST_SESSIONS_FORMAT = FIELDS.map((f) => `#{${f}}`).join('\t');

function int(field: string | undefined): number | null {
  if (field === undefined || !/^-?\d+$/.test(field)) return null;
  return Number(field);
}

/** Parses `list-sessions -F LIST_SESSIONS_FORMAT` output; lines that do not have the expected shape are skipped. */
export function parseListSessions(stdout: string): SessionInfo[] {
  const out: SessionInfo[] = [];
  for (const line of stdout.split('\n')) {
    if (line === '') continue;
    const parts = line.split('\t');
    if (parts.length < FIELDS.length) continue;
    const [sessionActivity, windowActivity, attached, panePid, paneDead, deadStatus, deadSignal, created] = parts;
    const name = parts.slice(FIELDS.length - 1).join('\t');
    const sa = int(sessionActivity);
    const wa = int(windowActivity);
    if (name === '' || (sa === null && wa === null)) continue;
    const dead = paneDead === '1';
    out.push({
      name,
      activity: Math.max(sa ?? 0, wa ?? 0),
      attached: int(attached) ?? 0,
      panePid: int(panePid),
      paneDead: dead,
      deadStatus: dead ? int(deadStatus) : null,
      deadSignal: dead ? int(deadSignal) : null,
      created: int(created),
    });
  }
  return out;
}
