/**
 * The leo.yaml `leo init` writes: every line a new user needs to start a first agent, commented, and nothing the
 * defaults already say. `workspaceRoot` (asked on a terminal) lands in defaults.workspace_root when given.
 */
export function initialConfig(o: { workspaceRoot?: string } = {}): string {
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
  # Claude Code. Needs \`claude\` on PATH and a login (run \`claude\` once) or ANTHROPIC_API_KEY in an environment.
  claude:
    harness: claude
    # model: claude-sonnet-4-5
    # repo: git@github.com:you/project.git   # cloned into each agent's folder
    # environments: [anthropic]

  # OpenAI Codex CLI. Needs \`codex\` on PATH and \`codex login\` (~/.codex/auth.json) or OPENAI_API_KEY.
  codex:
    harness: codex
    # model: gpt-5-codex
    # environments: [openai]

  # opencode. Needs \`opencode\` on PATH (\`npm install -g opencode-ai\`) and a provider: \`opencode auth login\`, or
  # one in ~/.config/opencode/opencode.json.
  opencode:
    harness: opencode
    # model: anthropic/claude-sonnet-4-5   # provider/model, as opencode names it

  # A plain shell in tmux, no model and no login: to try Leo's terminal view and fleet controls. A chat message
  # arrives as a \`[Leo Chat] …\` line, which bash takes for a command.
  shell:
    harness: shell
    command: bash
`;
}
