// Re-pointing a rollout at the workspace it continues in on another machine. Pure.
//
// Measured against codex 0.171.0 (docs/harnesses/codex.md, "Moving to another machine"): `codex resume <id>` in a
// folder other than the session's latest recorded one asks at its terminal whether to use the session's folder or
// the current one, and an unattended agent would wait there forever. That folder is the latest
// `thread_settings_applied` event's `cwd`: re-pointing `session_meta` and `turn_context` alone still asks. The
// settings Codex restores (those three records: the folder, the workspace roots, the sandbox's writable paths) are
// re-pointed. What the model was sent (`response_item`) and Codex's note of it (`world_state`) stay as they were:
// Codex sees its folder changed and sends the model a new environment context with the next turn.

/** `text` (a rollout) with its recorded workspace `from`, and any path under it, moved to `to`. */
export function repointRolloutWorkspace(text: string, from: string, to: string): string {
  if (from === to) return text;
  return text
    .split('\n')
    .map((line) => repointLine(line, from, to))
    .join('\n');
}

function repointLine(line: string, from: string, to: string): string {
  if (!line.includes(JSON.stringify(from).slice(1, -1))) return line;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return line;
  }
  if (!isRecord(value) || !recordsSettings(value)) return line;
  const payload = mapStrings(value.payload, (s) => repointPath(s, from, to));
  // Only a changed line is written anew: every other line stays byte for byte what Codex wrote.
  return JSON.stringify(payload) === JSON.stringify(value.payload) ? line : JSON.stringify({ ...value, payload });
}

/** The lines holding settings Codex restores on resume. */
function recordsSettings(line: Record<string, unknown>): boolean {
  if (line.type === 'session_meta' || line.type === 'turn_context') return true;
  return line.type === 'event_msg' && isRecord(line.payload) && line.payload.type === 'thread_settings_applied';
}

/** `p` with its leading `from` replaced by `to` when `p` is `from` or a path under it; else `p`. */
export function repointPath(p: string, from: string, to: string): string {
  const base = from.replace(/\/+$/, '');
  if (p === base) return to;
  return p.startsWith(`${base}/`) ? `${to.replace(/\/+$/, '')}${p.slice(base.length)}` : p;
}

function mapStrings(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f));
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapStrings(x, f)]));
  return v;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
