import os from 'node:os';
import path from 'node:path';

/** Every path the daemon and the CLI agree on, derived from LEO_HOME (default ~/.leo). */
export interface LeoPaths {
  home: string;
  stateDir: string;
  configFile: string;
  socketFile: string;
  operatorTokenFile: string;
  agentTokenFile: string;
  database: string;
}

export function resolvePaths(env: NodeJS.ProcessEnv = process.env): LeoPaths {
  const home = path.resolve(env.LEO_HOME || path.join(os.homedir(), '.leo'));
  const stateDir = path.join(home, 'state');
  return {
    home,
    stateDir,
    configFile: path.join(home, 'leo.yaml'),
    socketFile: path.join(stateDir, 'leo.sock'),
    operatorTokenFile: path.join(stateDir, 'api.token'),
    agentTokenFile: path.join(stateDir, 'agent.token'),
    database: path.join(stateDir, 'chat.db'),
  };
}

/** The user's home for `~` expansion in config; LEO_USER_HOME lets tests keep it away from the real one. */
export function userHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.LEO_USER_HOME || os.homedir();
}
