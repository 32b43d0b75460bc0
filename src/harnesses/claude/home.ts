// Where a Claude agent's own Claude Code keeps its state, seen from the environment its session starts with: a named
// environment's CLAUDE_CONFIG_DIR (or HOME), else the daemon's, which the tmux server hands every pane.
import os from 'node:os';
import path from 'node:path';

export interface ClaudeHome {
  /** Claude's own folder: transcripts, todo lists, file checkpoints. */
  dir: string;
  /** The global config file: onboarding, approved keys, per-project trust. */
  configFile: string;
  /** Where transcripts live, one folder per project. */
  projectsDir: string;
}

export function locateClaudeHome(agentEnv: Record<string, string>, baseEnv: NodeJS.ProcessEnv): ClaudeHome {
  const configDir = agentEnv.CLAUDE_CONFIG_DIR ?? baseEnv.CLAUDE_CONFIG_DIR;
  if (configDir)
    return {
      dir: configDir,
      configFile: path.join(configDir, '.claude.json'),
      projectsDir: path.join(configDir, 'projects'),
    };
  const home = agentEnv.HOME ?? baseEnv.HOME ?? os.homedir();
  const dir = path.join(home, '.claude');
  return { dir, configFile: path.join(home, '.claude.json'), projectsDir: path.join(dir, 'projects') };
}
