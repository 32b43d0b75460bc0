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
  return findCodexRollout(sessionsDir, sessionId) !== null;
}

/** The path of session `sessionId`'s rollout under `sessionsDir`, or null when Codex never wrote one. */
export function findCodexRollout(sessionsDir: string, sessionId: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(sessionId)) return null;
  let files: string[];
  try {
    files = fs.readdirSync(sessionsDir, { recursive: true }).map(String);
  } catch {
    return null;
  }
  const found = files.find((f) => isRolloutName(path.basename(f), sessionId));
  return found === undefined ? null : path.join(sessionsDir, found);
}

/** Whether `name` is the file name Codex gives session `sessionId`'s rollout. */
export function isRolloutName(name: string, sessionId: string): boolean {
  const tail = `-${sessionId}.jsonl`;
  return ROLLOUT_TIME.test(name) && name.endsWith(tail) && name.length === ROLLOUT_PREFIX_LENGTH + tail.length;
}

/** The day folders (`YYYY/MM/DD`) Codex files a rollout named `name` under: the day its name starts with. */
export function rolloutDay(name: string): string[] {
  return name.slice('rollout-'.length, 'rollout-2026-12-01'.length).split('-');
}
