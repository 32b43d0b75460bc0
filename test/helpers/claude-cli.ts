// Running the real Claude Code CLI against the scripted API server (anthropic-server.ts): where the pinned binary is,
// the environment that keeps it offline and away from the user's ~/.claude, and the seed interactive mode needs.
import fs from 'node:fs';
import path from 'node:path';
import { claudeOnboardingSeed } from '../../src/harnesses/claude/plan.js';
import { findCli, harnessTemplateConfig, sandboxDir } from './pinned-cli.js';
import { removeSandbox } from './strays.js';

/**
 * The pinned claude binary installed by `node scripts/setup.mjs --for-tests`, or why it cannot be used (for the
 * test's skip message).
 */
export const findClaude = () => findCli('claude');

/** Claude records an approved key by its last 20 characters; a key this long makes that suffix unique to the test. */
export function testApiKey(): string {
  return `test-key-${Math.random().toString(36).slice(2).padEnd(12, '0')}-offline`;
}

export interface ClaudeSandbox {
  /** The sandbox's own temp folder (config dir, TMPDIR, room for a workspace); removed by cleanup. */
  dir: string;
  /** CLAUDE_CONFIG_DIR: settings, transcripts and the onboarding seed live here, never in ~/.claude. */
  configDir: string;
  apiKey: string;
  /** The variables claude needs to run offline against `baseUrl`. */
  env: Record<string, string>;
  /** Marks `workspace` trusted and onboarding done, so interactive claude starts straight at its prompt. */
  seed(workspace: string): void;
  /**
   * A config like a real user's: onboarding done, the key approved (unless `approveKey` is false), their own projects
   * trusted, other settings of theirs — and no entry for any folder Leo will create. Returns what was written.
   */
  seedAsUser(opts?: { approveKey?: boolean }): Record<string, any>;
  cleanup(): void;
}

/**
 * A throwaway Claude config dir and the env that points claude at `baseUrl`. `binDir` (the claude binary's folder)
 * goes first on the env's PATH, for a child process that runs `claude` by name. Not for a tmux session: tmux 3.3
 * `new-session` takes PATH from the invoking client and ignores `-e PATH=…`, so there the caller's own PATH counts.
 */
export function claudeSandbox(opts: {
  baseUrl: string;
  binDir?: string;
  apiKey?: string;
  /** The folder to make the sandbox in (a test host's home); default the system temp folder. */
  under?: string;
}): ClaudeSandbox {
  const root = sandboxDir('claude', opts.under);
  const configDir = path.join(root, 'config');
  fs.mkdirSync(configDir, { mode: 0o700 });
  const tmpDir = path.join(root, 'tmp');
  fs.mkdirSync(tmpDir, { mode: 0o700 });
  const apiKey = opts.apiKey ?? testApiKey();
  const env: Record<string, string> = {
    ANTHROPIC_BASE_URL: opts.baseUrl,
    ANTHROPIC_API_KEY: apiKey,
    CLAUDE_CONFIG_DIR: configDir,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    // Claude leaves sockets (cc-socks/<pid>.sock) in the temp folder; keep them in the sandbox that cleanup removes.
    TMPDIR: tmpDir,
  };
  if (opts.binDir) env.PATH = [opts.binDir, process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'].join(path.delimiter);
  return {
    dir: root,
    configDir,
    apiKey,
    env,
    seed(workspace: string) {
      // Claude keys projects by the real path; a symlinked temp dir (macOS /var → /private/var) would not match.
      const real = fs.existsSync(workspace) ? fs.realpathSync(workspace) : workspace;
      fs.writeFileSync(path.join(configDir, '.claude.json'), claudeOnboardingSeed(real, apiKey), { mode: 0o600 });
    },
    seedAsUser({ approveKey = true } = {}) {
      const config = {
        numStartups: 41,
        installMethod: 'native',
        autoUpdates: false,
        hasCompletedOnboarding: true,
        lastOnboardingVersion: '2.1.300',
        theme: 'light-daltonized',
        tipsHistory: { 'new-user-warmup': 7, 'git-worktrees': 12 },
        ...(approveKey ? { customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] } } : {}),
        projects: {
          [path.join(root, 'my-own-project')]: {
            allowedTools: ['Bash(make:*)'],
            hasTrustDialogAccepted: true,
            lastCost: 1.25,
          },
        },
      };
      fs.writeFileSync(path.join(configDir, '.claude.json'), JSON.stringify(config, null, 2), { mode: 0o600 });
      return config;
    },
    cleanup() {
      removeSandbox(root);
    },
  };
}

/**
 * leo.yaml for one claude template (`coder`) working offline in the sandbox: a seeded workspace, and a named
 * environment carrying the sandbox's ANTHROPIC_* and CLAUDE_CONFIG_DIR plus a PATH that finds the claude binary —
 * the way a user hands an agent its credentials.
 */
export function claudeTemplateConfig(claudeBin: string, sandbox: ClaudeSandbox, model: string): string {
  const workspace = path.join(sandbox.dir, 'workspace');
  fs.mkdirSync(workspace, { recursive: true });
  sandbox.seed(workspace);
  return harnessTemplateConfig({
    harness: 'claude',
    bin: claudeBin,
    env: sandbox.env,
    model,
    environment: 'anthropic-offline',
    workspace,
  });
}
