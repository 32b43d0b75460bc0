// What Leo's opencode plugin and the daemon say to each other over POST /hooks/:event, both ways: the environment the
// plugin finds its way by, the permission-request payload it builds from opencode's `permission.asked` event, and the
// answer the daemon prints for it. Import-free, so it loads inside opencode (Bun) as well as in the daemon.

/** The folder the plugin writes its session transcripts to (`<session id>.jsonl`), set by the launch plan. */
export const TRANSCRIPTS_ENV = 'LEO_OPENCODE_TRANSCRIPTS';

/**
 * opencode 1.18.33's `permission.asked` event properties: `permission` is the kind ("bash", "edit", "webfetch",
 * "external_directory", …), `patterns` what it is asked for ("touch made.txt"), `metadata` the tool's details (bash:
 * `command`; edit: `filepath` and `diff`), `always` the patterns an "always" answer would save.
 */
export interface PermissionAsked {
  id: string;
  sessionID: string;
  permission: string;
  patterns?: string[];
  metadata?: Record<string, unknown>;
}

/**
 * The payload Leo's permission prompts read (`tool_name`, `tool_input`, as Claude's hook gives them), with the tool's
 * details under the field names the prompt's one-line summary looks for: `command`, `file_path`, `url`, else the
 * patterns. A diff stays out: it is no summary, and it can be large.
 */
export function permissionRequestPayload(asked: PermissionAsked): Record<string, unknown> {
  const m = asked.metadata ?? {};
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
  const input: Record<string, unknown> = {};
  const command = text(m.command);
  const file = text(m.filepath) ?? text(m.filePath);
  const url = text(m.url);
  if (command) input.command = command;
  if (file) input.file_path = file;
  if (url) input.url = url;
  if (!Object.keys(input).length) input.patterns = asked.patterns ?? [];
  return {
    session_id: asked.sessionID,
    permission_id: asked.id,
    tool_name: asked.permission,
    tool_input: input,
  };
}

/**
 * The body of opencode's permission reply (`POST /session/:id/permissions/:permissionID`, the plugin SDK's
 * `postSessionIdPermissionsPermissionId`). Leo answers only once or reject: a prompt in chat is allow or deny. The
 * 1.18.33 endpoint takes `response` alone; a reason given with a deny is not passed on (measured: `message` is
 * ignored and the turn ends on the rejection).
 */
export interface OpencodeDecision {
  response: 'once' | 'reject';
}

/**
 * What the daemon prints for an opencode agent's permission request: the reply's body, as JSON. opencode never waits
 * on the plugin, so the daemon holds the request past chat's deadline for a late answer (`hookOutlivesDeadline`).
 */
export const OPENCODE_DECISIONS = {
  allow: (): string => JSON.stringify({ response: 'once' } satisfies OpencodeDecision),
  deny: (): string => JSON.stringify({ response: 'reject' } satisfies OpencodeDecision),
  hookOutlivesDeadline: true as const,
};

/** The plugin's reading of the daemon's answer; anything else (no answer, a daemon from elsewhere) is no decision. */
export function readDecision(output: unknown): OpencodeDecision | undefined {
  if (typeof output !== 'string' || output === '') return undefined;
  try {
    const value = JSON.parse(output) as { response?: unknown };
    return value.response === 'once' || value.response === 'reject' ? { response: value.response } : undefined;
  } catch {
    return undefined;
  }
}
