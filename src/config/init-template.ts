/** Which harness CLIs this machine has: a template for one it lacks is written commented out. */
export type Installed = Record<(typeof HARNESS_TEMPLATES)[number]['name'], boolean>;

/** The harnesses `leo init` writes a template for, besides the shell. */
export const INIT_HARNESSES = ['claude', 'codex', 'opencode'] as const;

/** The template `leo init` always writes, whatever is installed: a plain shell, which needs no CLI. */
export const SHELL_TEMPLATE = 'shell';

const HARNESS_TEMPLATES = [
  {
    name: 'claude',
    about:
      'Claude Code. Needs `claude` on PATH and a login (run `claude` once) or ANTHROPIC_API_KEY in an environment.',
    install: 'npm install -g @anthropic-ai/claude-code',
    lines: [
      'harness: claude',
      '# model: claude-sonnet-4-5',
      "# repo: git@github.com:you/project.git   # cloned into each agent's folder",
      '# environments: [anthropic]',
    ],
  },
  {
    name: 'codex',
    about: 'OpenAI Codex CLI. Needs `codex` on PATH and `codex login` (~/.codex/auth.json) or OPENAI_API_KEY.',
    install: 'npm install -g @openai/codex',
    lines: ['harness: codex', '# model: gpt-5-codex', '# environments: [openai]'],
  },
  {
    name: 'opencode',
    about:
      'opencode. Needs `opencode` on PATH and a provider: `opencode auth login`, or one in ~/.config/opencode/opencode.json.',
    install: 'npm install -g opencode-ai',
    lines: ['harness: opencode', '# model: anthropic/claude-sonnet-4-5   # provider/model, as opencode names it'],
  },
] as const;

/**
 * The templates section: one per harness, commented out (with how to install it) when its CLI is not on this machine,
 * so `leo doctor` does not report a program the user never meant to use; then the shell template, which needs none.
 */
function templates(installed: Installed): string {
  const blocks = HARNESS_TEMPLATES.map((t) => {
    const body = [`${t.name}:`, ...t.lines.map((l) => `  ${l}`)];
    const head = `  # ${t.about}`;
    if (installed[t.name]) return [head, ...body.map((l) => `  ${l}`)].join('\n');
    return [head, `  # Not installed here (${t.install}); uncomment once it is.`, ...body.map((l) => `  # ${l}`)].join(
      '\n',
    );
  });
  const shell = [
    "  # A plain shell in tmux, no model and no login: to try Leo's terminal view and fleet controls. A chat message",
    '  # arrives as a `[Leo Chat] …` line, which bash takes for a command.',
    `  ${SHELL_TEMPLATE}:`,
    '    harness: shell',
    '    command: bash',
  ].join('\n');
  return [...blocks, shell].join('\n\n');
}

/**
 * The leo.yaml `leo init` writes: every line a new user needs to start a first agent, commented, and nothing the
 * defaults already say. `workspaceRoot` (asked on a terminal) lands in defaults.workspace_root when given.
 */
export function initialConfig(o: { workspaceRoot?: string; installed: Installed }): string {
  const root = o.workspaceRoot
    ? `  workspace_root: ${JSON.stringify(o.workspaceRoot)}  # where agents get their folders`
    : '  # workspace_root: ~/leo-agents   # where agents get their folders (default: ~/.leo/agents)';
  return `# Leo's configuration, written by \`leo init\`. Every key: docs/CONFIG.md. The daemon reloads this file when it
# is saved (a change to web.listen or pool.threads waits for a restart). \`leo doctor\` checks it.
#
# An agent is started from a template:  leo agent spawn claude --name my-agent   (or from Leo Web's spawn form)

web:
  # Leo Web and the API. Loopback only; \`leo remote <host>\` sets up a phone over Tailscale or a proxy.
  listen: 127.0.0.1:8370

log:
  level: info  # debug also logs every request

defaults:
  harness: claude
${root}

# Named sets of environment variables (API keys, a PATH) that templates and agents pick by name. Values are secrets:
# never served or logged; keep this file 0600.
environments: {}
#  anthropic:
#    ANTHROPIC_API_KEY: sk-ant-...
#  openai:
#    OPENAI_API_KEY: sk-...

templates:
${templates(o.installed)}
`;
}
