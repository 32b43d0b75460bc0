// Where a Codex agent's own Codex keeps its sessions, seen from the environment its session starts with (a named
// environment's CODEX_HOME or HOME, else the daemon's), and whether one is there to resume. Measured against codex
// 0.171.0: the TUI writes its rollout (`sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl`) only with the first
// prompt, and `codex resume <id>` of a session never written exits at once — every restart would do the same.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function locateCodexSessions(agentEnv: Record<string, string>, baseEnv: NodeJS.ProcessEnv): string {
  const home = agentEnv.CODEX_HOME ?? baseEnv.CODEX_HOME;
  if (home) return path.join(home, 'sessions');
  return path.join(agentEnv.HOME ?? baseEnv.HOME ?? os.homedir(), '.codex', 'sessions');
}

/** `rollout-2026-12-01T18-57-30`: what comes before the session id in a rollout's name. */
const ROLLOUT_TIME = /^rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-/;
const ROLLOUT_PREFIX_LENGTH = 'rollout-2026-12-01T18-57-30'.length;

export function codexSessionExists(sessionsDir: string, sessionId: string): boolean {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(sessionId)) return false;
  let files: string[];
  try {
    files = fs.readdirSync(sessionsDir, { recursive: true }).map(String);
  } catch {
    return false;
  }
  const name = `-${sessionId}.jsonl`;
  return files.some((f) => {
    const base = path.basename(f);
    return ROLLOUT_TIME.test(base) && base.endsWith(name) && base.length === ROLLOUT_PREFIX_LENGTH + name.length;
  });
}
